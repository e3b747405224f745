// readCommitObjects reads many commits in one `git cat-file --batch`: each
// field must equal what `git log` says of the same commit, whatever the
// message holds, and a name the clone cannot resolve must be left out rather
// than shift the commits after it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readCommitObjects } from '../../src/capture/ledger/commit-objects.js';
import { cleanEnv } from '../helpers/cli.js';
import { commitAll, gitIn, newRepo, writeFile } from './ledger-helpers.js';

const logged = (repo: string, commit: string) => {
  const [parents = '', seconds = '', author = '', authorName = '', subject = ''] = gitIn(repo, [
    'log',
    '-1',
    '--format=%P%x00%ct%x00%an <%ae> %at%x00%an%x00%s',
    commit,
  ]).split('\0');
  return { parents: parents.split(' ').filter(Boolean), ts: new Date(Number(seconds) * 1000).toISOString(), author, authorName, subject };
};

test('parents, committer time, author and message equal git log, around a missing name and a signed commit', async () => {
  const repo = newRepo();
  writeFile(repo, 'a.txt', ['one']);
  const first = commitAll(repo, 'first');
  writeFile(repo, 'a.txt', ['one', 'two']);
  // Several lines and multi-byte characters: sizes are counted in bytes.
  const second = commitAll(repo, 'Füge Zeile hinzu (#12)\n\nKörper mit ünïcödé\nparent deadbeef\n\nauthor Nobody <n@x> 1 +0000');
  // A signature is a header of many lines, each continuation starting with a space.
  const tree = gitIn(repo, ['rev-parse', `${second}^{tree}`]);
  const signed = gitIn(repo, ['hash-object', '-t', 'commit', '-w', '--stdin'], {
    input: [
      `tree ${tree}`,
      `parent ${second}`,
      `parent ${first}`,
      'author Signer <s@example.com> 1700000000 +0200',
      'committer Signer <s@example.com> 1700000100 -0130',
      'gpgsig -----BEGIN PGP SIGNATURE-----',
      ' ',
      ' parent 0000000000000000000000000000000000000000',
      ' -----END PGP SIGNATURE-----',
      '',
      'Merge pull request #7 from x/y',
      '',
    ].join('\n'),
  });
  gitIn(repo, ['update-ref', 'refs/notes/tracer', signed]);
  const missing = '1'.repeat(40);

  const read = await readCommitObjects([first, missing, second, signed, 'refs/notes/tracer^{commit}', 'no-such-ref'], {
    cwd: repo,
    env: cleanEnv(),
  });

  assert.equal([...read.keys()], [first, second, signed, 'refs/notes/tracer^{commit}']);
  for (const commit of [first, second]) {
    const object = read.get(commit)!;
    const expected = logged(repo, commit);
    // Subject and author name as git's %s and %an give them: the commit link carries them (issue 32).
    assert.equal(object.info, {
      commit,
      parents: expected.parents,
      ts: expected.ts,
      subject: expected.subject,
      authorName: expected.authorName,
    });
    assert.is(object.author, expected.author);
    assert.is(object.message.trimEnd(), gitIn(repo, ['log', '-1', '--format=%B', commit]).trimEnd());
  }
  assert.equal(read.get(signed), {
    info: {
      commit: signed,
      parents: [second, first],
      ts: new Date(1_700_000_100_000).toISOString(),
      subject: 'Merge pull request #7 from x/y',
      authorName: 'Signer',
    },
    author: 'Signer <s@example.com> 1700000000',
    message: 'Merge pull request #7 from x/y\n',
  });
  assert.is(read.get('refs/notes/tracer^{commit}')!.info.commit, signed);
});

test('no names, no git call: an empty map', async () => {
  // A cwd that is no repository would make any git call fail.
  const read = await readCommitObjects([], { cwd: '/', env: cleanEnv() });
  assert.is(read.size, 0);
});

test.run();

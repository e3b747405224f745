import { test } from 'uvu';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup } from '../helpers/cli.js';
import { threeAgents } from '../search/agents-fixture.js';
test.after(cleanup);
test('probe', async () => {
  const box = await threeAgents();
  const dir = join(box.home, 'projects', readdirSync(join(box.home, 'projects'))[0]!);
  console.log(readdirSync(dir));
  console.log(readFileSync(join(dir, 'conversations.jsonl'), 'utf8'));
  console.log(readFileSync(join(dir, 'session-summaries.jsonl'), 'utf8'));
  for (const q of ['numpy', 'proxy', 'f-string', 'ghp_*', 'REDACTED']) { const r = await box.run(['search', q]); console.log(q, r.code, r.stdout, r.stderr); }
  for (const f of ['requirements.txt:2', 'NOTES.md:3', 'greet.py', 'VERSION']) { const r = await box.run(['why', f]); console.log(r.code, r.stdout, r.stderr); }
});
test.run();

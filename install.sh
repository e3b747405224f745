#!/bin/sh
# Installs tracer into $TRACER_HOME (default ~/.tracer), from a clone or an unpacked `npm pack` tarball:
#   bin/tracer, bin/t, bin/tracer-viewer   launchers that record the absolute node they were installed with
#   lib/versions/<version>-<stamp>/         the program (package.json `files`) with its production dependencies
#   lib/current -> versions/...             switched with one rename(2), so a running hook never sees half an install
#   viewer -> lib/current/dist/viewer       the built viewer (assets and backend) of the current version
# Usage: sh install.sh [--modify-path] [--node PATH] | sh install.sh --uninstall
#
# Production dependencies: the source folder has them in node_modules (a clone after `npm install`, or
# an unpacked tarball, which bundles them: package.json bundleDependencies), and the installer copies
# just their closure (dependencies + optionalDependencies, resolved the way node does) into the version
# folder, then checks that better-sqlite3's native addon loads with this node. That works offline and
# takes about 3 s here (lib/ holds ~35 MB once the addon's build leftovers are pruned). A fresh clone has
# no node_modules and no dist/: the installer first runs `npm ci` in it (the lock file's exact versions;
# its prepare script is the build), which needs the registry or a warm npm cache and compiles
# better-sqlite3 when no prebuilt addon can be downloaded (72 s here). npm install --omit=dev is the
# fallback for a folder without node_modules; npm rebuild, for an addon built for another node.
# End to end tests: test/install/ (installer.test.ts; from-source.test.ts for a fresh clone and a tarball).
# Data in $TRACER_HOME (projects/, config.json, projects.json, server/, ...) is never read or written here.
set -u
umask 022

marker='# added by tracer install.sh'
stage=''
locked=''
done_ok=''

die() {
  printf 'install.sh: %s\n' "$*" >&2
  exit 1
}
say() { printf '%s\n' "$*"; }
# A word the shell reads back as exactly $1, whatever it holds.
quote() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

cleanup() {
  status=$?
  [ -n "$stage" ] && [ -z "$done_ok" ] && rm -rf "$stage"
  [ -n "$locked" ] && rm -rf "$home/.install.lock"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

mode=install
modify_path=''
node_bin=''
while [ $# -gt 0 ]; do
  case $1 in
    --uninstall) mode=uninstall ;;
    --modify-path) modify_path=1 ;;
    --node) [ $# -ge 2 ] || die "--node needs a path; pass the node to install with, e.g. --node /usr/local/bin/node"; node_bin=$2; shift ;;
    --node=*) node_bin=${1#--node=} ;;
    -h | --help)
      sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *) die "unknown option $1; run install.sh --help for the options" ;;
  esac
  shift
done

[ -n "${HOME:-}" ] || [ -n "${TRACER_HOME:-}" ] || die "neither HOME nor TRACER_HOME is set; set TRACER_HOME to the folder tracer should use"
home=${TRACER_HOME:-$HOME/.tracer}
case $home in /*) ;; *) home=$(pwd)/$home ;; esac
home=${home%/}
lock="$home/.install.lock"

# mkdir is atomic: the first installer to create the folder holds the lock, and names itself in it as
# tracer's locks do (src/store/file-lock.ts): pid and start time. A lock whose process is gone (a
# killed install), or whose pid is now another process's (another start time), or that names nobody
# 5 s after it was made (killed between the two steps), is broken at once; a live one is waited for,
# a minute at most.

# The start time of process $1: field 22 of /proc/<pid>/stat (the command name, field 2, may hold
# spaces: the fields after its closing parenthesis); nothing without /proc.
start_of() {
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
  # shellcheck disable=SC2086
  set -- ${stat##*) }
  [ "$#" -ge 20 ] && eval "printf '%s' \"\${20}\""
}

acquire_lock() {
  # A new home is private (0700), as tracer makes it: it will hold transcripts and tokens.
  if ! (umask 077 && mkdir -p "$home") 2>/dev/null || ! [ -w "$home" ]; then
    die "cannot write to $home; set TRACER_HOME to a folder you can write to (or fix its permissions) and run install.sh again"
  fi
  waited=0
  while ! mkdir "$lock" 2>/dev/null; do
    [ -d "$lock" ] || die "cannot write to $home; set TRACER_HOME to a folder you can write to (or fix its permissions) and run install.sh again"
    holder=$(cat "$lock/pid" 2>/dev/null || true)
    holder_start=$(cat "$lock/start" 2>/dev/null || true)
    dead=
    if [ -z "$holder" ]; then
      [ "$waited" -ge 50 ] && dead=1
    elif ! kill -0 "$holder" 2>/dev/null; then
      dead=1
    elif [ -n "$holder_start" ] && [ "$(start_of "$holder")" != "$holder_start" ]; then
      dead=1
    fi
    if [ -n "$dead" ]; then
      # Renamed before removal, so two installers breaking the same stale lock cannot remove each other's new one.
      mv "$lock" "$lock.stale.$$" 2>/dev/null && rm -rf "$lock.stale.$$"
      continue
    fi
    waited=$((waited + 1))
    [ "$waited" -le 600 ] || die "another install.sh (pid ${holder:-unknown}) holds $lock; wait for it to finish, or remove that folder if no install is running"
    sleep 0.1 2>/dev/null || sleep 1
  done
  locked=1
  start_of "$$" >"$lock/start"
  printf '%s\n' "$$" >"$lock/pid"
}

# rename(2) through node: `mv -T` is GNU-only, and plain mv onto a symlinked folder moves into it.
atomic_rename() {
  "$node_bin" -e 'require("node:fs").renameSync(process.argv[1], process.argv[2])' "$1" "$2"
}

rc_candidates() {
  printf '%s\n' "$HOME/.profile" "$HOME/.bashrc" "$HOME/.bash_profile" "$HOME/.zshrc" "${ZDOTDIR:-$HOME}/.zshrc" "$HOME/.config/fish/conf.d/tracer.fish"
}

uninstall() {
  [ -d "$home" ] || die "nothing is installed in $home; set TRACER_HOME if tracer was installed elsewhere"
  acquire_lock
  for name in tracer t tracer-viewer; do rm -f "$home/bin/$name"; done
  rmdir "$home/bin" 2>/dev/null || true
  [ -L "$home/viewer" ] && rm -f "$home/viewer"
  rm -rf "$home/lib"
  [ -n "${HOME:-}" ] && rc_candidates | sort -u | while IFS= read -r rc; do
    [ -f "$rc" ] && grep -F -q "$marker" "$rc" || continue
    case $rc in
      */conf.d/tracer.fish) rm -f "$rc" ;;
      *) grep -v -F "$marker" "$rc" >"$rc.tracer-tmp" && cat "$rc.tracer-tmp" >"$rc" && rm -f "$rc.tracer-tmp" ;;
    esac
    say "Removed the PATH line from $rc."
  done
  say "tracer is uninstalled from $home (bin/, lib/, viewer/)."
  say "Recorded data is kept, every byte: $home (projects/, config.json, projects.json, server/); delete that folder to remove it too."
  say "Agent settings and git hooks in repositories where you ran tracer init still name $home/bin/tracer: remove them there with tracer init --uninstall (best run before this, or with tracer from npm)."
}

check_node() {
  if [ -z "$node_bin" ]; then
    node_bin=$(command -v node 2>/dev/null) || die "node was not found on PATH; install Node.js $required or newer (https://nodejs.org) or pass --node /path/to/node"
  fi
  case $node_bin in /*) ;; *) node_bin=$(pwd)/$node_bin ;; esac
  [ -x "$node_bin" ] || die "$node_bin is not an executable node; install Node.js $required or newer or pass --node /path/to/node"
  found=$("$node_bin" --version 2>/dev/null) || die "$node_bin --version failed; install Node.js $required or newer or pass --node /path/to/node"
  found=${found#v}
  if ! version_at_least "$found" "$required"; then
    die "node $found ($node_bin) is too old, tracer needs $required or newer; install a newer Node.js or pass --node /path/to/node"
  fi
}

# version_at_least 20.19.1 20.5 → true; compares major, minor, patch as numbers.
version_at_least() {
  have=$1 want=$2
  for _ in 1 2 3; do
    h=${have%%.*} w=${want%%.*}
    h=${h:-0} w=${w:-0}
    case $h$w in *[!0-9]*) return 1 ;; esac
    [ "$h" -gt "$w" ] && return 0
    [ "$h" -lt "$w" ] && return 1
    case $have in *.*) have=${have#*.} ;; *) have=0 ;; esac
    case $want in *.*) want=${want#*.} ;; *) want=0 ;; esac
  done
  return 0
}

# Builds dist/ when it is missing, or older than src/ in a clone; a tarball ships it built.
build_if_needed() {
  dist_is_current && return 0
  [ -d "$src/src" ] || die "$src has no dist/ and no sources to build it from; use a complete clone or an npm pack tarball"
  if [ ! -x "$src/node_modules/.bin/tsc" ]; then
    install_build_dependencies
    # npm ci runs the package's prepare script, which is the build.
    dist_is_current && return 0
  fi
  say "Building tracer (npm run build)..."
  (cd "$src" && PATH="$(dirname "$node_bin"):$PATH" npm run build >/dev/null) || die "npm run build failed in $src; run it there to see why"
}

dist_is_current() {
  [ -f "$src/dist/cli/main.js" ] && [ -f "$src/dist/viewer/assets/app.js" ] || return 1
  [ -d "$src/src" ] || return 0
  [ -z "$(find "$src/src" "$src/package.json" -newer "$src/dist/cli/main.js" -type f 2>/dev/null | head -n 1)" ]
}

# A fresh clone has no node_modules: install what the build needs (and the production dependencies,
# which are then copied from there) in the clone itself, exactly as its lock file says, as
# `npm install` in a clone would.
install_build_dependencies() {
  command -v npm >/dev/null 2>&1 || die "$src needs a build and npm was not found; install npm (it comes with Node.js) and run install.sh again"
  [ -w "$src" ] || die "$src needs a build and is not writable; run install.sh from a clone you can write to"
  how='npm install'
  [ -f "$src/package-lock.json" ] && how='npm ci'
  say "Installing the build dependencies in $src ($how; compiling better-sqlite3 takes a minute or two)..."
  # --prefer-offline: the lock file pins every version and its hash, so a package already in npm's cache needs no trip to the registry.
  # shellcheck disable=SC2086 # $how is two words on purpose
  (cd "$src" && PATH="$(dirname "$node_bin"):$PATH" $how --prefer-offline --no-audit --no-fund --loglevel=error >/dev/null) ||
    die "$how failed in $src; run it there to see why (npm needs the registry or its cache), then run install.sh again"
}

# Prints the top-level folders of node_modules that the production dependency closure needs, or fails
# (status 3) when one is missing, so the caller falls back to npm.
production_packages() {
  "$node_bin" - "$src" <<'EOF'
const fs = require('node:fs');
const path = require('node:path');
const root = fs.realpathSync(process.argv[2]);
let modules;
try { modules = fs.realpathSync(path.join(root, 'node_modules')); } catch { process.exit(3); }
const manifest = (dir) => JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
const wanted = (pkg) => [
  ...Object.keys(pkg.dependencies ?? {}).map((name) => [name, false]),
  ...Object.keys(pkg.optionalDependencies ?? {}).map((name) => [name, true]),
];
// Node's lookup: <dir>/node_modules/<name>, then each parent's, up to the package root's.
function find(from, name) {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const base = path.basename(dir) === 'node_modules' ? dir : path.join(dir, 'node_modules');
    const candidate = path.join(base, name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (dir === modules || dir === root || path.dirname(dir) === dir) return undefined;
  }
}
const top = new Set();
const seen = new Set();
const queue = [[root, manifest(root)]];
while (queue.length) {
  const [dir, pkg] = queue.shift();
  for (const [name, optional] of wanted(pkg)) {
    const found = find(dir === root ? modules : dir, name);
    if (!found) { if (optional) continue; process.stderr.write(`missing ${name}\n`); process.exit(3); }
    const real = fs.realpathSync(found);
    if (seen.has(real)) continue;
    seen.add(real);
    const relative = path.relative(modules, found).split(path.sep);
    if (relative[0] === '..') process.exit(3);
    top.add(relative[0].startsWith('@') ? relative.slice(0, 2).join('/') : relative[0]);
    queue.push([found, manifest(found)]);
  }
}
process.stdout.write([...top].sort().join('\n') + '\n');
EOF
}

copy_program() {
  files=$("$node_bin" -e 'for (const f of require(process.argv[1]).files ?? []) console.log(f)' "$src/package.json") ||
    die "cannot read $src/package.json; run install.sh from a tracer clone or unpacked tarball"
  cp "$src/package.json" "$stage/" || die "copying into $stage failed; check free space in $home and run install.sh again"
  printf '%s\n' "$files" | while IFS= read -r entry; do
    [ -n "$entry" ] || continue
    [ -e "$src/$entry" ] || continue
    mkdir -p "$stage/$(dirname "$entry")" && cp -R "$src/$entry" "$stage/$entry" || exit 1
  done || die "copying the program into $stage failed; check free space in $home and run install.sh again"
}

install_dependencies() {
  if packages=$(production_packages 2>/dev/null); then
    modules=$(cd "$src/node_modules" && pwd -P)
    mkdir -p "$stage/node_modules" || die "cannot create $stage/node_modules; check free space in $home and run install.sh again"
    for package in $packages; do
      mkdir -p "$stage/node_modules/$(dirname "$package")" &&
        cp -R "$modules/$package" "$stage/node_modules/$package" ||
        die "copying $package into $stage failed; check free space in $home and run install.sh again"
    done
    restore_packed_addon
    addon_loads && prune_addon_build && return 0
    say "better-sqlite3 was built for another node; rebuilding it for $found (npm rebuild)..."
    (cd "$stage" && PATH="$(dirname "$node_bin"):$PATH" npm rebuild better-sqlite3 --no-audit --no-fund >/dev/null 2>&1) && addon_loads && return 0
    die "better-sqlite3 does not load with node $found and npm rebuild failed; run npm rebuild in $src with this node and run install.sh again"
  fi
  command -v npm >/dev/null 2>&1 || die "$src has no node_modules and npm was not found; install npm (it comes with Node.js) and run install.sh again"
  say "Installing production dependencies (npm install --omit=dev)..."
  # A package.json of the dependencies alone: npm install in the program's own folder would run its prepare (a build).
  mkdir -p "$stage/.deps" &&
    "$node_bin" -e '
      const fs = require("node:fs");
      const pkg = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
      const deps = { name: "tracer-dependencies", private: true, dependencies: pkg.dependencies, optionalDependencies: pkg.optionalDependencies, overrides: pkg.overrides };
      fs.writeFileSync(process.argv[2], JSON.stringify(deps, null, 2));' "$src/package.json" "$stage/.deps/package.json" &&
    (cd "$stage/.deps" && PATH="$(dirname "$node_bin"):$PATH" npm install --omit=dev --no-audit --no-fund --no-package-lock --loglevel=error >/dev/null) &&
    mv "$stage/.deps/node_modules" "$stage/node_modules" && rm -rf "$stage/.deps" ||
    die "npm install --omit=dev failed; check your network or npm settings and run install.sh again"
  addon_loads && prune_addon_build || die "better-sqlite3 does not load with node $found; run install.sh again with the node you use (--node)"
}

# An npm pack tarball's bundled better-sqlite3 has no build/ (npm packs a bundled package by its own
# `files`, which lists none): the build keeps a copy of the addon in dist/native/, which the tarball
# carries. Put it where better-sqlite3 loads it from; addon_loads then says whether it suits this node.
restore_packed_addon() {
  packed="$stage/dist/native/better_sqlite3.node"
  target="$stage/node_modules/better-sqlite3/build/Release/better_sqlite3.node"
  if [ -f "$packed" ] && [ -d "$stage/node_modules/better-sqlite3" ] && [ ! -f "$target" ]; then
    mkdir -p "$(dirname "$target")" && cp "$packed" "$target" ||
      die "copying better-sqlite3's addon into $stage failed; check free space in $home and run install.sh again"
  fi
}

# Once the addon loads, what compiled it (sources, objects: ~30 MB) is dead weight in lib/.
prune_addon_build() {
  addon="$stage/node_modules/better-sqlite3"
  rm -rf "$addon/deps" "$addon/src" "$addon/build/Release/obj" "$addon/build/Release/obj.target" "$addon/build/Release/.deps" \
    "$addon/build/Release/sqlite3.a" "$addon/build/Release/test_extension.node"
  addon_loads
}

addon_loads() {
  "$node_bin" -e 'const D = require(process.argv[1]); new D(":memory:").close()' "$stage/node_modules/better-sqlite3" >/dev/null 2>&1
}

# One launcher: its home, the node it was installed with (node on PATH when that one is gone), then exec.
write_launcher() {
  name=$1 args=$2
  tmp="$home/bin/.$name.tmp.$$"
  hook_step=
  # An agent's hook (hook <agent> <event>) is spooled by sh, without node starting while the agent waits.
  [ -n "$args" ] || hook_step='if [ "$#" -eq 3 ] && [ "$1" = hook ] && [ -f "$tracer_home/lib/current/bin/tracer-hook.sh" ]; then
  exec /bin/sh "$tracer_home/lib/current/bin/tracer-hook.sh" "$tracer_node" "$tracer_home/lib/current/bin/tracer.js" "$@"
fi'

  cat >"$tmp" <<EOF || die "cannot write $home/bin; check free space and permissions and run install.sh again"
#!/bin/sh
# The $name launcher, written by install.sh; install.sh --uninstall removes it.
tracer_home=$(quote "$home")
tracer_node=$(quote "$node_bin")
if [ ! -x "\$tracer_node" ]; then
  on_path=\$(command -v node 2>/dev/null) || {
    echo "$name: the node it was installed with (\$tracer_node) is gone and none is on PATH; run install.sh again with the node you use now" >&2
    exit 127
  }
  tracer_node=\$on_path
fi
if [ ! -f "\$tracer_home/lib/current/bin/tracer.js" ]; then
  echo "$name: \$tracer_home/lib/current is missing; run install.sh again" >&2
  exit 127
fi
# Agents started from a desktop launcher may not have TRACER_HOME: the installed home is the default.
TRACER_HOME=\${TRACER_HOME:-\$tracer_home}
export TRACER_HOME
$hook_step
exec "\$tracer_node" "\$tracer_home/lib/current/bin/tracer.js"$args "\$@"
EOF
  # A launcher is a regular file, which mv replaces with one rename(2) (folders and symlinks need atomic_rename).
  [ ! -d "$home/bin/$name" ] || die "$home/bin/$name is a folder; remove it and run install.sh again"
  chmod 755 "$tmp" && mv -f "$tmp" "$home/bin/$name" || die "cannot write $home/bin/$name; check permissions and run install.sh again"
}

path_advice() {
  bin="$home/bin"
  case ":${PATH:-}:" in *":$bin:"*) [ -z "$modify_path" ] && return 0 ;; esac
  shell_name=$(basename "${SHELL:-sh}")
  line="export PATH=$(quote "$bin"):\"\$PATH\""
  case $shell_name in
    zsh) rc="${ZDOTDIR:-$HOME}/.zshrc" ;;
    bash) if [ "$(uname -s)" = Darwin ]; then rc="$HOME/.bash_profile"; else rc="$HOME/.bashrc"; fi ;;
    fish) rc="$HOME/.config/fish/conf.d/tracer.fish" line="set -gx PATH $(quote "$bin") \$PATH" ;;
    *) rc="$HOME/.profile" ;;
  esac
  if [ -n "$modify_path" ]; then
    if [ -f "$rc" ] && grep -F -q "$marker" "$rc"; then
      say "$rc already puts $bin on PATH."
    else
      mkdir -p "$(dirname "$rc")" && printf '\n%s %s\n' "$line" "$marker" >>"$rc" ||
        die "cannot write $rc; add this line to your shell's startup file by hand: $line"
      say "Added $bin to PATH in $rc; open a new shell (or run: $line)."
    fi
  else
    say "$bin is not on your PATH. Add this line to $rc (or run install.sh --modify-path):"
    say "  $line"
  fi
}

install() {
  src=$(cd "$(dirname "$0")" && pwd -P)
  [ -f "$src/package.json" ] && [ -f "$src/bin/tracer.js" ] || die "$src is not a tracer folder; run the install.sh of a tracer clone or unpacked tarball"
  required=$(sed -n 's/.*"node"[[:space:]]*:[[:space:]]*">=[[:space:]]*\([0-9.]*\)".*/\1/p' "$src/package.json" | head -n 1)
  required=${required:-20}
  check_node
  version=$("$node_bin" -p 'require(process.argv[1]).version' "$src/package.json") || die "cannot read $src/package.json"
  build_if_needed
  acquire_lock

  mkdir -p "$home/lib/versions" "$home/bin" 2>/dev/null || die "cannot create $home/lib and $home/bin; check permissions and run install.sh again"
  # Left by an install that was killed: never in use, since only the holder of the lock stages.
  rm -rf "$home/lib/versions"/.staging-*
  stage="$home/lib/versions/.staging-$$"
  mkdir "$stage" || die "cannot create $stage; check permissions and run install.sh again"
  copy_program
  install_dependencies
  # dist/native/ only carries the addon to this point: the version folder does not keep a second copy.
  rm -rf "$stage/dist/native"
  # One node for the three strings: every node start costs the install (and the tests' eleven installs) time.
  "$node_bin" -p 'const [home, launcher, node] = process.argv.slice(1).map((path) => JSON.stringify(path)); `{ "home": ${home}, "launcher": ${launcher}, "node": ${node} }`' \
    "$home" "$home/bin/tracer" "$node_bin" >"$stage/installed.json" ||
    die "cannot write $stage/installed.json; check free space and run install.sh again"
  got=$("$node_bin" "$stage/bin/tracer.js" --version 2>/dev/null) && [ "$got" = "$version" ] ||
    die "the copied program does not start (tracer --version said '${got:-nothing}'); the previous install is untouched; run install.sh again"

  name="$version-$(date -u +%Y%m%dT%H%M%SZ)-$$"
  mv "$stage" "$home/lib/versions/$name" || die "cannot rename $stage; check permissions and run install.sh again"
  stage="$home/lib/versions/$name"
  ln -s "versions/$name" "$home/lib/.current.tmp.$$" && atomic_rename "$home/lib/.current.tmp.$$" "$home/lib/current" ||
    die "cannot switch $home/lib/current to the new version; the previous install is untouched; run install.sh again"
  done_ok=1
  write_launcher tracer ''
  write_launcher t ''
  write_launcher tracer-viewer ' view'
  if [ ! -e "$home/viewer" ] || [ -L "$home/viewer" ]; then
    ln -s "lib/current/dist/viewer" "$home/.viewer.tmp.$$" && atomic_rename "$home/.viewer.tmp.$$" "$home/viewer" ||
      say "install.sh: could not link $home/viewer; tracer view works without it"
  else
    say "install.sh: $home/viewer is not tracer's link, left as it is; tracer view works without it"
  fi
  for old in "$home/lib/versions"/* "$home/lib/versions"/.staging-*; do
    [ -e "$old" ] && [ "$old" != "$stage" ] && rm -rf "$old"
  done
  say "Installed tracer $version in $home (node $found at $node_bin)."
  path_advice
}

if [ "$mode" = uninstall ]; then uninstall; else install; fi

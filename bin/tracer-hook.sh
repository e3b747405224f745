#!/bin/sh
# What an agent's hook runs on every tool use, installed by `tracer init` as
#   /bin/sh <this file> <node> <bin/tracer.js> hook <agent> <event>
# The agent waits for its hooks, and starting node costs more than the whole
# of this script: so it only saves the payload to the spool, as one entry
# that appears whole (written under a dot name, then renamed), and starts
# node in the background to fold it into traces.jsonl
# (src/capture/spool/fold.ts; the entry's format is in entry.ts there).
# Every tracer command folds the spool before it reads, so nothing waits for
# that background run. Whatever this script cannot spool, node records at
# once, as before: TRACER_HOOK_SYNC=1, a relative TRACER_HOME or working folder,
# a line break in a path, a spool folder that cannot be created.
node=$1 script=$2
shift 2
sync() { exec "$node" "$script" "$@"; }
[ "$#" -eq 3 ] && [ "$1" = hook ] || sync "$@"
case $2 in -*) sync "$@" ;; esac
case $3 in -*) sync "$@" ;; esac
[ "${TRACER_HOOK_SYNC:-}" = 1 ] && sync "$@"
if [ -n "${TRACER_HOME:-}" ]; then home=$TRACER_HOME; elif [ -n "${HOME:-}" ]; then home=$HOME/.tracer; else sync "$@"; fi
case $home in /*) ;; *) sync "$@" ;; esac
case $PWD in /*) ;; *) sync "$@" ;; esac
newline='
'
for value in "$PWD" "$home" "${HOME:-}" "${GIT_DIR:-}" "${GIT_WORK_TREE:-}" "${GIT_COMMON_DIR:-}"; do
  case $value in *"$newline"*) sync "$@" ;; esac
done
spool=$home/spool
umask 077
[ -d "$spool" ] || mkdir -p "$spool" 2>/dev/null || sync "$@"
name=$(date +%s)-$$
{
  printf 'tracer-spool 1\n%s\n%s\n%s\n' "$2" "$3" "$PWD"
  [ -n "${HOME+set}" ] && printf 'HOME=%s\n' "$HOME"
  [ -n "${GIT_DIR+set}" ] && printf 'GIT_DIR=%s\n' "$GIT_DIR"
  [ -n "${GIT_WORK_TREE+set}" ] && printf 'GIT_WORK_TREE=%s\n' "$GIT_WORK_TREE"
  [ -n "${GIT_COMMON_DIR+set}" ] && printf 'GIT_COMMON_DIR=%s\n' "$GIT_COMMON_DIR"
  printf '\n'
  cat
} >"$spool/.$name" 2>/dev/null && mv -f "$spool/.$name" "$spool/$name.event" 2>/dev/null || {
  # The payload was read from stdin and cannot be read again: the entry is kept
  # only if whole, and node is asked to fold whatever is there.
  rm -f "$spool/.$name"
}
TRACER_HOME=$home "$node" "$script" hook --fold </dev/null >/dev/null 2>&1 &
exit 0

# Sourced by the install scripts: `hold_lock PATH` waits for, then holds until the calling (sub)shell
# exits, a lock between processes, so that two first starts do not install the same thing at once.
# With flock (Linux) the lock is the file PATH; without it (macOS has none) a directory PATH.d that
# holds its owner's pid, taken over once that process is gone, or after a minute if it never wrote
# its pid (it died in between), by one at a time of the processes that find it so (a takeover left
# by a process that died during it is removed likewise). A pid reused by another process since
# (after a reboot) is waited on, saying so after a few seconds: which process, and which directory
# to remove if no install runs.
hold_lock() {
  local path="$1"
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$path"
    flock 9
    return
  fi
  local dir="$path.d" owner taker me waited=0 blocked=0
  # The (sub)shell's own pid: $$ is the script's, and bash before 4.0 (macOS's /bin/bash) has no
  # BASHPID; a command substitution's exec'd sh has the (sub)shell as its parent.
  me="${BASHPID:-$(exec sh -c 'echo "$PPID"')}"
  until mkdir "$dir" 2>/dev/null; do
    owner=""
    [ -f "$dir/pid" ] && read -r owner <"$dir/pid" || true
    if { [ -n "$owner" ] && ! kill -0 "$owner" 2>/dev/null; } || { [ -z "$owner" ] && [ "$waited" -ge 300 ]; }; then
      # Taken over under a second lock (holding its taker's pid), and only if it is still the lock
      # found stale: another process that found it stale too may have removed it and taken the
      # lock anew meanwhile.
      if mkdir "$dir.takeover" 2>/dev/null; then
        echo "$me" >"$dir.takeover/pid"
        local now=""
        [ -f "$dir/pid" ] && read -r now <"$dir/pid" || true
        [ -d "$dir" ] && [ "$now" = "$owner" ] && rm -rf "$dir"
        rm -rf "$dir.takeover"
        waited=0
        blocked=0
        continue
      fi
      # Another process is taking it over: waited on, unless it died meanwhile (its pid gone, or
      # none written within a minute), when its takeover is removed.
      taker=""
      [ -f "$dir.takeover/pid" ] && read -r taker <"$dir.takeover/pid" || true
      if { [ -n "$taker" ] && ! kill -0 "$taker" 2>/dev/null; } || { [ -z "$taker" ] && [ "$blocked" -ge 300 ]; }; then
        rm -rf "$dir.takeover"
        blocked=0
        continue
      fi
      sleep 0.2
      blocked=$((blocked + 1))
      continue
    fi
    if [ -n "$owner" ] && [ "$waited" -eq 25 ]; then
      echo "harness: waiting for process $owner, which holds the lock $dir; if it is not installing, remove that directory" >&2
    fi
    sleep 0.2
    waited=$((waited + 1))
  done
  echo "$me" >"$dir/pid"
  # shellcheck disable=SC2064 # the directory is fixed now, on purpose
  trap "rm -rf $(printf %q "$dir")" EXIT
}

# Sourced by the install scripts: `hold_lock PATH` waits for, then holds until the calling (sub)shell
# exits, a lock between processes, so that two first starts do not install the same thing at once.
# With flock (Linux) the lock is the file PATH; without it (macOS has none) a directory PATH.d that
# holds its owner's pid, taken over once that process is gone, or after a minute if it never wrote
# its pid (it died in between).
hold_lock() {
  local path="$1"
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$path"
    flock 9
    return
  fi
  local dir="$path.d" owner waited=0
  until mkdir "$dir" 2>/dev/null; do
    owner=""
    [ -f "$dir/pid" ] && read -r owner <"$dir/pid" || true
    if { [ -n "$owner" ] && ! kill -0 "$owner" 2>/dev/null; } || { [ -z "$owner" ] && [ "$waited" -ge 300 ]; }; then
      rm -rf "$dir"
      waited=0
      continue
    fi
    sleep 0.2
    waited=$((waited + 1))
  done
  echo "$BASHPID" >"$dir/pid"
  # shellcheck disable=SC2064 # the directory is fixed now, on purpose
  trap "rm -rf '$dir'" EXIT
}

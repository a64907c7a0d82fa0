#!/usr/bin/env bash
# Runs "$@" with a Secret Service available: a private D-Bus session with an unlocked GNOME Keyring of this
# run's own, when both tools exist; otherwise runs "$@" as it is (keychain tests then skip with their reason,
# or fail when CLOSEBOOK_REQUIRE_KEYCHAIN=1).
#
# The keyring is fresh and empty for every run, in a new directory that is removed when the run ends
# (CLOSEBOOK_KEYRING_DIR names it to "$@"). A keyring shared by runs only grows (every save rewrites the
# whole file), and two runs' daemons writing one file lose each other's items and fail on stale ones.
# A desktop session's own keychain is left alone: set CLOSEBOOK_KEYCHAIN=session to test against it.
set -euo pipefail
if [ "${CLOSEBOOK_KEYCHAIN:-}" = session ] && [ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ]; then
  exec "$@"
fi
if ! command -v dbus-run-session >/dev/null || ! command -v gnome-keyring-daemon >/dev/null; then
  exec "$@"
fi

dir="$(mktemp -d "${TMPDIR:-/tmp}/closebook-keyring.XXXXXX")"
cleanup() { rm -rf "$dir"; }
trap cleanup EXIT

# The daemon alone sees the run's XDG_DATA_HOME (its keyrings/ folder); "$@" keeps the caller's. The daemon
# is stopped, and waited for, before the folder is removed, so nothing writes to it afterwards.
inner='
  printf x | XDG_DATA_HOME="$CLOSEBOOK_KEYRING_DIR/data" gnome-keyring-daemon --unlock --components=secrets \
    --control-directory="$CLOSEBOOK_KEYRING_DIR/control" >"$CLOSEBOOK_KEYRING_DIR/env"
  eval "$(cat "$CLOSEBOOK_KEYRING_DIR/env")"
  export GNOME_KEYRING_CONTROL
  # The daemon owns the Secret Service name a moment after it returns: until then a call would start
  # another daemon by D-Bus activation, on the default keyring folder. Wait for it, and learn its pid.
  daemon=""
  for _ in $(seq 100); do
    daemon="$(dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
      org.freedesktop.DBus.GetConnectionUnixProcessID string:org.freedesktop.secrets 2>/dev/null |
      awk "/uint32/ { print \$2 }")"
    [ -n "$daemon" ] && break
    sleep 0.1
  done
  [ -n "$daemon" ] || echo "with-keychain: GNOME Keyring did not take the Secret Service name" >&2
  status=0
  "$@" || status=$?
  if [ -n "$daemon" ] && kill "$daemon" 2>/dev/null; then
    for _ in $(seq 50); do kill -0 "$daemon" 2>/dev/null || break; sleep 0.1; done
  fi
  exit "$status"
'
mkdir -m 700 "$dir/data" "$dir/control"
CLOSEBOOK_KEYRING_DIR="$dir" dbus-run-session -- bash -c "$inner" bash "$@" <&0 \
  2> >(grep -v 'Failed to set fd limit' >&2) &
session=$!
# A signal to this script goes on to the session, as when the script ended in `exec dbus-run-session`;
# the keyring folder is removed once the session has ended.
for signal in HUP INT TERM; do
  trap 'kill -'"$signal"' "$session" 2>/dev/null' "$signal"
done
status=0
while :; do
  if wait "$session"; then status=0; else status=$?; fi
  kill -0 "$session" 2>/dev/null || break
done
exit "$status"

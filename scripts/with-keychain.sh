#!/usr/bin/env bash
# Runs "$@" with a Secret Service available: inside a private D-Bus session with an unlocked GNOME Keyring
# when none is running and both tools exist; otherwise runs "$@" as it is (keychain tests then skip with
# their reason, or fail when CLOSEBOOK_REQUIRE_KEYCHAIN=1).
set -euo pipefail
if [ -z "${DBUS_SESSION_BUS_ADDRESS:-}" ] && command -v dbus-run-session >/dev/null && command -v gnome-keyring-daemon >/dev/null; then
  exec dbus-run-session -- bash -c 'eval "$(printf x | gnome-keyring-daemon --unlock --components=secrets)"; export GNOME_KEYRING_CONTROL; exec "$@"' bash "$@" 2> >(grep -v 'Failed to set fd limit' >&2)
fi
exec "$@"

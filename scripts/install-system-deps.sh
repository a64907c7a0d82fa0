#!/usr/bin/env bash
# What a fresh Debian/Ubuntu machine lacks for Closebook's tests: Debian's Chromium (end-to-end tests;
# Playwright never downloads a browser here), GNOME Keyring + D-Bus (the vault's tests run against a
# real Secret Service), openpyxl (an independent reader of the exported workbook), LibreOffice Calc
# (recomputes the workbook's formulas headless, an evaluator independent of ours), Noto CJK fonts (the
# Japanese screenshots of the user guide, `npm run docs:screenshots`, show kanji and kana, not boxes),
# PostgreSQL (the team workspace's tests initdb a throwaway cluster of their own from its server binaries;
# never a shared server), python3-dbus (stands in for a keychain unlock dialog nobody answers).
# Installs only what is missing, so a second run costs a few seconds.
set -euo pipefail

packages=(chromium gnome-keyring dbus dbus-x11 libsecret-1-0 python3-openpyxl libreoffice-calc-nogui fonts-noto-cjk postgresql python3-dbus)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "system packages: all present"
  exit 0
fi
if ! command -v apt-get >/dev/null; then
  echo "Please install: ${missing[*]} (no apt-get on this machine)" >&2
  exit 1
fi
SUDO=''
[ "$(id -u)" -eq 0 ] || SUDO='sudo'
echo "system packages: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

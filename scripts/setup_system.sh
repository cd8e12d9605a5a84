#!/usr/bin/env bash
# Installs the system packages the project needs where the machine allows it (root + apt):
# chromium (end-to-end tests) and bubblewrap (kernel sandbox). Without root it only reports.
set -uo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
command -v setpriv >/dev/null 2>&1 || need+=(util-linux)
[ -e /usr/lib/x86_64-linux-gnu/libseccomp.so.2 ] || [ -e /usr/lib/aarch64-linux-gnu/libseccomp.so.2 ] || need+=(libseccomp2)
if [ ${#need[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing system packages: ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
else
  echo "warning: missing system packages (${need[*]}); install them to get the full sandbox and e2e tests" >&2
fi

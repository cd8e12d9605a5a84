#!/usr/bin/env bash
# Installs the system packages the project needs where the machine allows it (root + apt):
# chromium (end-to-end tests), and for the kernel sandbox bubblewrap, util-linux (setpriv),
# libseccomp2 and python3-venv (the kernel venv is made from /usr/bin/python3 so that the
# sandbox's per-slot uid can reach it). Without root it only reports what is missing.
set -uo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
command -v setpriv >/dev/null 2>&1 || need+=(util-linux)
[ -e /usr/lib/x86_64-linux-gnu/libseccomp.so.2 ] || [ -e /usr/lib/aarch64-linux-gnu/libseccomp.so.2 ] || need+=(libseccomp2)
if [ -x /usr/bin/python3 ] && ! /usr/bin/python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
  need+=(python3-venv)
fi
if [ ${#need[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing system packages: ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # Wait for another apt/dpkg run (up to 10 minutes) instead of failing on its lock.
  lock=(-o DPkg::Lock::Timeout=600)
  apt-get "${lock[@]}" update -qq >/dev/null &&
    apt-get "${lock[@]}" install -y -qq --no-install-recommends "${need[@]}" >/dev/null ||
    echo "warning: could not install ${need[*]}; the sandbox or e2e tests may be unavailable" >&2
else
  echo "warning: missing system packages (${need[*]}); install them to get the full sandbox and e2e tests" >&2
fi
exit 0

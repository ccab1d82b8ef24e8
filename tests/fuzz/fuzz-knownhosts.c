/*
 * libFuzzer target for the known_hosts reader: each input is written to a
 * known_hosts file in a private temporary directory and checked for three
 * names and two keys; the verdict must keep its promises (a line number
 * for every verdict but NEW, a fingerprint for CHANGED, a known status:
 * UNVERIFIABLE for a host named only by lines skipped). Build and run
 * (see tests/fuzz/corpus-knownhosts/ for seeds):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. \
 *	tests/fuzz/fuzz-knownhosts.c coordinator/hosts/knownhosts.c \
 *	$(pkg-config --cflags --libs libcrypto) -o /tmp/fuzz-knownhosts
 *   /tmp/fuzz-knownhosts -max_total_time=60 tests/fuzz/corpus-knownhosts
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coordinator/hosts/knownhosts.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static char	fuzz_dir[64];
static char	fuzz_path[96];

/* Removes the temporary file and its directory. */
static void
fuzz_cleanup(void)
{
	unlink(fuzz_path);
	rmdir(fuzz_dir);
}

/* Creates the temporary directory once; returns 0 or -1. */
static int
fuzz_setup(void)
{
	if (fuzz_path[0] != '\0')
		return (0);
	snprintf(fuzz_dir, sizeof fuzz_dir, "/tmp/fuzz-knownhosts.XXXXXX");
	if (mkdtemp(fuzz_dir) == NULL)
		return (-1);
	snprintf(fuzz_path, sizeof fuzz_path, "%s/known_hosts", fuzz_dir);
	atexit(fuzz_cleanup);
	return (0);
}

/* Warnings are expected; only their form is checked. */
static void
fuzz_warn(const char *msg)
{
	if (strncmp(msg, fuzz_path, strlen(fuzz_path)) != 0 ||
	    msg[strlen(fuzz_path)] != ':')
		abort();
}

/* The key blob "ssh-ed25519" + 32 bytes of seed. */
static size_t
fuzz_key(unsigned char *out, int seed)
{
	static const char	type[] = "ssh-ed25519";
	size_t			n = sizeof type - 1, i;

	memset(out, 0, 8);
	out[3] = (unsigned char)n;
	memcpy(out + 4, type, n);
	out[7 + n] = 32;
	for (i = 0; i < 32; i++)
		out[8 + n + i] = (unsigned char)(seed + (int)i);
	return (8 + n + 32);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char	*names[] = { "h.lab", "[127.0.0.1]:2222", "x" };
	struct kh_result	 res;
	unsigned char		 key[64];
	char			 err[256];
	size_t			 i, k, keylen;
	FILE			*f;

	if (fuzz_setup() != 0 || (f = fopen(fuzz_path, "w")) == NULL)
		return (0);
	if (size > 0 && fwrite(data, 1, size, f) != size) {
		fclose(f);
		return (0);
	}
	if (fclose(f) != 0)
		return (0);
	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		for (k = 0; k < 3; k++) {
			keylen = fuzz_key(key, (int)k);
			if (knownhosts_check(fuzz_path, names[i],
			    k == 2 ? NULL : key, keylen, &res, fuzz_warn, err,
			    sizeof err) != 0)
				abort();
			if ((res.status == KH_NEW) != (res.line == 0) ||
			    res.ntypes > KH_TYPES_MAX ||
			    res.status > KH_UNVERIFIABLE)
				abort();
			if (res.status == KH_CHANGED &&
			    strstr(res.known_fp, " key ") == NULL)
				abort();
		}
	}
	return (0);
}

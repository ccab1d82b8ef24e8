/*
 * libFuzzer target for the `ssh -G` answer parser and the ProxyJump hop
 * reader: each input is parsed as the answer for one host; what is
 * accepted must keep its promises (a hostname, a port in range, fields
 * NUL-terminated within their size, paths without control characters).
 * The input is also the ssh_config file read for the line a known_hosts
 * list came from (every such path accepted is absolute). Then the input,
 * cut at its first NUL, is read as a hop list. Build and
 * run (see tests/fuzz/corpus-sshconfig/ for seeds):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. \
 *	tests/fuzz/fuzz-sshconfig.c coordinator/hosts/sshconfig.c \
 *	coordinator/hosts/inventory.c coordinator/input/ini.c proto/ident.c proto/util.c \
 *	$(pkg-config --cflags --libs inih) -o /tmp/fuzz-sshconfig
 *   /tmp/fuzz-sshconfig -max_total_time=60 tests/fuzz/corpus-sshconfig
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coordinator/hosts/host.h"
#include "coordinator/hosts/sshconfig.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/*
 * Stands in for host-local.c, which inventory.c (linked for its address
 * rule) names; this target resolves no hosts, so it is never called.
 */
void
host_local_init(struct host *h)
{
	memset(h, 0, sizeof *h);
}

/* Aborts unless s is NUL-terminated within len and free of controls. */
static void
fuzz_field(const char *s, size_t len)
{
	const char	*end = memchr(s, '\0', len);

	if (end == NULL)
		abort();
	for (; s < end; s++) {
		if (iscntrl((unsigned char)*s))
			abort();
	}
}

static char	fuzz_cfg[64];

/* Removes the config file. */
static void
fuzz_cleanup(void)
{
	unlink(fuzz_cfg);
}

/* Writes the input as the ssh_config file; returns 0 or -1. */
static int
fuzz_write_cfg(const uint8_t *data, size_t size)
{
	FILE	*f;
	int	 fd;

	if (fuzz_cfg[0] == '\0') {
		snprintf(fuzz_cfg, sizeof fuzz_cfg, "/tmp/fuzz-sshconfig.XXXXXX");
		if ((fd = mkstemp(fuzz_cfg)) == -1)
			return (-1);
		close(fd);
		atexit(fuzz_cleanup);
	}
	if ((f = fopen(fuzz_cfg, "w")) == NULL)
		return (-1);
	if (size > 0 && fwrite(data, 1, size, f) != size) {
		fclose(f);
		return (-1);
	}
	if (fclose(f) != 0)
		return (-1);
	sshcfg_set_file(fuzz_cfg);
	return (0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sshcfg	 c;
	char		 err[1024], user[64], host[256], *s;
	const char	*spec;
	size_t		 i;
	int		 port, n = 0;

	setenv("HOME", "/home/fuzz", 1);
	setenv("USER", "fuzz", 1);
	if (fuzz_write_cfg(data, size) != 0)
		return (0);
	if (sshcfg_parse("fuzz", (const char *)data, size, &c, err,
	    sizeof err) == 0) {
		if (c.hostname[0] == '\0' || c.port < 1 || c.port > 65535)
			abort();
		fuzz_field(c.hostname, sizeof c.hostname);
		fuzz_field(c.user, sizeof c.user);
		fuzz_field(c.proxyjump, sizeof c.proxyjump);
		fuzz_field(c.reach.hostkey_alias, sizeof c.reach.hostkey_alias);
		if (c.reach.nids > HOST_IDS_MAX || c.reach.nkh > HOST_KH_MAX ||
		    c.reach.nglobal > HOST_KH_MAX)
			abort();
		for (i = 0; i < c.reach.nids; i++)
			fuzz_field(c.reach.ids[i], HOST_PATH_LEN);
		for (i = 0; i < c.reach.nkh; i++) {
			fuzz_field(c.reach.known_hosts[i], HOST_PATH_LEN);
			if (c.reach.known_hosts[i][0] != '/')
				abort();
		}
		for (i = 0; i < c.reach.nglobal; i++) {
			fuzz_field(c.reach.global_kh[i], HOST_PATH_LEN);
			if (c.reach.global_kh[i][0] != '/')
				abort();
		}
	} else
		fuzz_field(err, sizeof err);

	if ((s = malloc(size + 1)) == NULL)
		return (0);
	memcpy(s, data, size);
	s[size] = '\0';
	spec = s;
	while (sshcfg_next_hop(&spec, user, sizeof user, host, sizeof host,
	    &port, err, sizeof err) == 1) {
		if (host[0] == '\0' || port < 0 || port > 65535 ||
		    host[0] == '-' || user[0] == '-')
			abort();
		if (++n > 1000)
			abort();	/* every hop consumes input */
	}
	free(s);
	return (0);
}

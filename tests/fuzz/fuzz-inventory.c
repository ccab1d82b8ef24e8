/*
 * libFuzzer target for the inventory parser: each input is written to an
 * inventory file in a private temporary directory and loaded; a loaded
 * inventory resolves `all`, `local` and each host by name. host_local_init()
 * is stubbed here so the target needs no agent or protocol code. Build and
 * run (see tests/fuzz/corpus-inventory/ for seeds):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. \
 *	tests/fuzz/fuzz-inventory.c coordinator/hosts/inventory.c coordinator/input/ini.c \
 *	coordinator/hosts/sshconfig.c proto/ident.c proto/util.c \
 *	$(pkg-config --cflags --libs inih) -o /tmp/fuzz-inventory
 *   /tmp/fuzz-inventory -max_total_time=60 tests/fuzz/corpus-inventory
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coordinator/hosts/inventory.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

const struct host_ops host_local_ops = { "local", NULL, NULL, NULL, NULL };

static char	fuzz_dir[64];
static char	fuzz_path[96];

/* Stands in for host-local.c: the fields the inventory relies on. */
void
host_local_init(struct host *h)
{
	memset(h, 0, sizeof *h);
	snprintf(h->name, sizeof h->name, "local");
	h->ops = &host_local_ops;
	h->max_load = -1;
	h->chan.sock = -1;
}

/* Removes the temporary inventory file and its directory. */
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
	snprintf(fuzz_dir, sizeof fuzz_dir, "/tmp/fuzz-inventory.XXXXXX");
	if (mkdtemp(fuzz_dir) == NULL)
		return (-1);
	snprintf(fuzz_path, sizeof fuzz_path, "%s/fuzz.ini", fuzz_dir);
	atexit(fuzz_cleanup);
	/* Fixed, so results do not depend on the environment. */
	setenv("HOME", "/home/fuzz", 1);
	setenv("USER", "fuzz", 1);
	return (0);
}

/* Resolves list; aborts if the result breaks a promise. */
static void
fuzz_resolve(const struct inventory *inv, const char *list, size_t min)
{
	struct inventory_slurm_node	 sn;
	struct host			*hosts = NULL;
	char				*cause = NULL;
	size_t				 n = 0, i, j;

	if (inventory_resolve(inv, list, &hosts, &n, &cause) == 0) {
		if (cause != NULL || hosts == NULL || n < min ||
		    n > inventory_nhosts(inv) + 1)
			abort();
		for (i = 0; i < n; i++) {
			if (hosts[i].name[0] == '\0' ||
			    memchr(hosts[i].name, '\0', sizeof hosts[i].name) ==
			    NULL || (hosts[i].ops == NULL) ==
			    (strcmp(hosts[i].name, "local") == 0))
				abort();
			/* A Slurm host's address is its node's, given later. */
			if (hosts[i].ops == NULL && ((hosts[i].address[0] ==
			    '\0' && !inventory_slurm_host(inv, hosts[i].name,
			    &sn)) || hosts[i].port < 1 || hosts[i].port > 65535))
				abort();
			for (j = 0; j < i; j++) {
				if (strcmp(hosts[i].name, hosts[j].name) == 0)
					abort();	/* duplicates removed */
			}
		}
	} else if (cause == NULL || hosts != NULL || n != 0)
		abort();
	free(cause);
	free(hosts);
}

/* Loads one input as an inventory file and resolves lists against it. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct inventory	*inv = NULL;
	char			*cause = NULL;
	FILE			*f;
	size_t			 i;

	if (fuzz_setup() != 0 || (f = fopen(fuzz_path, "wb")) == NULL)
		abort();
	if (fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
	if (inventory_load(fuzz_path, 1, &inv, &cause) == 0) {
		if (cause != NULL || inv == NULL)
			abort();
		fuzz_resolve(inv, "local", 1);
		if (inventory_nhosts(inv) > 0)
			fuzz_resolve(inv, "all,local",
			    inventory_nhosts(inv) + 1);
		for (i = 0; i < inventory_nhosts(inv) && i < 16; i++)
			fuzz_resolve(inv, inventory_host_name(inv, i), 1);
		/* Group names, and anything else, resolve or fail cleanly. */
		fuzz_resolve(inv, "lab,a,b,g,nested,x", 0);
	} else if (cause == NULL || inv != NULL)
		abort();
	free(cause);
	inventory_free(inv);
	return (0);
}

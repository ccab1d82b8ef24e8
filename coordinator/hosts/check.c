/* orch check: a readiness table per host, and what to fix before measuring. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/hosts/check.h"
#include "coordinator/hosts/host-route.h"
#include "coordinator/hosts/host.h"
#include "coordinator/hosts/inventory.h"
#include "coordinator/hosts/slurm-login.h"
#include "coordinator/hosts/slurm.h"
#include "coordinator/input/defaults.h"
#include "coordinator/input/tty.h"
#include "proto/log.h"
#include "proto/xmalloc.h"

struct check_row {
	struct host	*h;
	struct host_probe p;
	char		 warnings[2048];
	int		 nwarn;
	int		 ready;
	char		 error[HOST_ERR_LEN];
	int		 slurm;		/* a Slurm host: sn holds its entry */
	struct inventory_slurm_node sn;
	char		 part[1024];	/* what slurm_check said */
};

/* Returns the value of an extra fact, or "" when absent. */
static const char *
check_fact(const struct host *h, const char *key)
{
	size_t	i;

	for (i = 0; i < h->facts.nextra; i++) {
		if (strcmp(h->facts.extra[i].key, key) == 0)
			return (h->facts.extra[i].value);
	}
	return ("");
}

/* Returns an extra fact for printing: its value, or "unknown". */
static const char *
check_or(const struct host *h, const char *key)
{
	const char	*v = check_fact(h, key);

	return (*v != '\0' ? v : "unknown");
}

/* The load gate a run would apply: the inventory's, else the default. */
static double
check_gate(const struct host *h)
{
	return (h->max_load >= 0 ? h->max_load : DEFAULT_MAX_LOAD);
}

/* Returns 1 when a run would wait for h's load to drop before measuring. */
static int
check_would_wait(const struct host *h)
{
	return (h->facts.cores > 0 && check_gate(h) > 0 &&
	    h->facts.load[0] / h->facts.cores > check_gate(h));
}

/* Returns cause without a leading "NAME: ": the line names the host. */
static const char *
check_unnamed(const struct host *h, const char *cause)
{
	size_t	n = strlen(h->name);

	if (strncmp(cause, h->name, n) == 0 && strncmp(cause + n, ": ",
	    2) == 0)
		return (cause + n + 2);
	return (cause);
}

const char *
check_ready(const struct host *h, int probed)
{
	if (probed)
		return (check_would_wait(h) ? "would wait" : "yes");
	return (h->agent_stale ? "run deploys" : "NO");
}

int
check_warnings(const struct host *h, char *buf, size_t len)
{
	const char	*v;
	int		 n = 0;
	double		 per_core;

#define W(...) do {							\
	snprintf(buf + strlen(buf), len - strlen(buf), __VA_ARGS__);	\
	n++;								\
} while (0)
	buf[0] = '\0';
	v = check_fact(h, "governor");
	if (*v != '\0' && strcmp(v, "performance") != 0 &&
	    strcmp(v, "unknown") != 0)
		W("CPU frequency governor is %s, not performance: clock speed "
		    "varies with load\n", v);
	v = check_fact(h, "boost");
	if (strcmp(v, "on") == 0)
		W("turbo/boost is on: clock speed depends on temperature and "
		    "other load\n");
	v = check_fact(h, "aslr");
	if (strcmp(v, "on") == 0 || strcmp(v, "partial") == 0)
		W("ASLR is %s: memory layout changes run to run (fine for "
		    "interleaved A/B; note it)\n", v);
	v = check_fact(h, "thp");
	if (strcmp(v, "always") == 0)
		W("transparent huge pages are 'always': memory-bound numbers "
		    "may swing\n");
	v = check_fact(h, "vm");
	if (strncmp(v, "yes", 3) == 0)
		W("running in a virtual machine (%s): neighbours share the "
		    "hardware\n", v);
	v = check_fact(h, "smt");
	if (strcmp(v, "on") == 0)
		W("SMT (hyper-threading) is on: pin benchmarks to one thread "
		    "per core (pin =)\n");
	if (check_would_wait(h)) {
		per_core = h->facts.load[0] / h->facts.cores;
		W("1-minute load %.2f (%.2f per core) is above max_load %.2f "
		    "per core of %u cores: a run would wait (--max-load=0 "
		    "measures anyway)\n", h->facts.load[0], per_core,
		    check_gate(h), h->facts.cores);
	}
	if (strcmp(h->facts.os, "darwin") == 0)
		W("macOS has no CPU affinity: pin = is not applied there\n");
#undef W
	return (n);
}

/*
 * Makes what the agent told about h safe for the terminal (its facts are
 * its own words; orch check prints them and records nothing).
 */
static void
check_clean(struct check_row *row)
{
	struct proto_facts	*f = &row->h->facts;
	size_t			 i;

	tty_clean(f->os, 0);
	tty_clean(f->arch, 0);
	tty_clean(f->cpu_model, 0);
	tty_clean(f->kernel, 0);
	tty_clean(f->hostname, 0);
	tty_clean(f->workdir, 0);
	for (i = 0; i < f->nextra && i < PROTO_FACTS_EXTRA_MAX; i++) {
		tty_clean(f->extra[i].key, 0);
		tty_clean(f->extra[i].value, 0);
	}
	tty_clean(row->p.agent, 0);
	tty_clean(row->p.disk, 0);
}

/*
 * A Slurm host: nothing is allocated; its partition and nodes are told,
 * and it is ready when the partition can give exclusive nodes.
 */
static void
check_slurm(struct check_row *row)
{
	char	*cause = NULL;
	int	 excl;

	if (!row->slurm) {
		snprintf(row->error, sizeof row->error, "a Slurm host: its "
		    "node is known only once orch run allocates it (docs/"
		    "inventory.md, \"Slurm\"); not checked");
		return;
	}
	if (slurm_check(&row->sn, row->h->name, row->part, sizeof row->part,
	    &excl, &cause) != 0) {
		snprintf(row->error, sizeof row->error, "%s", cause);
		free(cause);
		return;
	}
	if (!excl) {
		snprintf(row->error, sizeof row->error, "%s: orch run would "
		    "refuse its nodes: not exclusive", row->part);
		return;
	}
	row->ready = 2;
}

static void *
check_thread(void *arg)
{
	struct check_row	*row = arg;
	struct host		*h = row->h;
	struct host_probe	*p = &row->p;

	snprintf(p->reach, sizeof p->reach, "-");
	snprintf(p->hostkey, sizeof p->hostkey, "-");
	snprintf(p->auth, sizeof p->auth, "-");
	snprintf(p->agent, sizeof p->agent, "-");
	snprintf(p->disk, sizeof p->disk, "-");
	/* A Slurm host's node comes with a run: its partition is told. */
	if (row->slurm || (h->address[0] == '\0' && h->route != NULL)) {
		snprintf(p->reach, sizeof p->reach, "slurm");
		check_slurm(row);
		return (NULL);
	}
	if (h->ops->probe(h, p, row->error, sizeof row->error) != 0)
		return (NULL);
	h->no_deploy = 1;
	if (host_open(h, "check") != 0) {
		snprintf(row->error, sizeof row->error, "%s", h->error);
		host_close(h);
		return (NULL);
	}
	snprintf(p->agent, sizeof p->agent, "%s", h->agent_version);
	h->ops->probe_open(h, p);
	host_close(h);
	check_clean(row);
	row->nwarn = check_warnings(h, row->warnings, sizeof row->warnings);
	row->ready = 1;
	return (NULL);
}

/* Says where orch deploy gets a host's agent: prebuilt, or built there. */
static void
check_agent_source(const struct host *h)
{
	char	buf[PATH_MAX + 128];

	if (h->ops->agent_source(h, buf, sizeof buf) == 0)
		printf("%s: agent: %s\n", h->name, buf);
}

/* Says which jump hosts a host is reached through, first hop first. */
static void
check_route(const struct host *h)
{
	const struct host_route	*r = h->route;
	size_t			 i;

	if (r == NULL || r->nhops == 0)
		return;
	printf("%s: reached through", h->name);
	for (i = 0; i < r->nhops; i++)
		printf("%s %s (%s@%s port %d)", i > 0 ? "," : "",
		    r->hops[i].name, r->hops[i].user, r->hops[i].address,
		    r->hops[i].port);
	printf("\n");
}

int
check_main(struct host *hosts, size_t n, const char *inventory)
{
	struct check_row	*rows;
	struct inventory	*inv = NULL;
	struct host		*h;
	size_t			 i, wname = 4, wkey = 8;
	int			 all = 1, required;
	char			*p, *line, *save, *cause = NULL;

	rows = xcalloc(n, sizeof *rows);
	/* A cluster's login host is looked up where the hosts were. */
	slurm_login_inventory(inventory);
	/* The hosts resolved from it: it loads, and names Slurm's. */
	if (inventory_load(inventory_path(inventory, &required), required,
	    &inv, &cause) != 0) {
		free(cause);
		inv = NULL;
	}
	for (i = 0; i < n; i++) {
		rows[i].h = &hosts[i];
		rows[i].slurm = inventory_slurm_host(inv, hosts[i].name,
		    &rows[i].sn);
	}
	host_each(rows, n, sizeof *rows, check_thread);
	slurm_login_close();

	/* Names and host key states are never cut: the columns fit them. */
	for (i = 0; i < n; i++) {
		if (strlen(rows[i].h->name) > wname)
			wname = strlen(rows[i].h->name);
		if (strlen(rows[i].p.hostkey) > wkey)
			wkey = strlen(rows[i].p.hostkey);
	}
	printf("%-*s %-9s %-*s %-6s %-8s %-16s %-28s %5s %6s %10s  %s\n",
	    (int)wname, "HOST", "REACHABLE", (int)wkey, "HOST KEY", "AUTH",
	    "AGENT", "OS/ARCH", "CPU", "CORES", "LOAD", "DISK FREE", "READY");
	for (i = 0; i < n; i++) {
		char	osarch[40] = "-", cpu[29] = "-", cores[8] = "-";
		char	load[16] = "-";

		h = rows[i].h;
		if (rows[i].ready == 1) {
			snprintf(osarch, sizeof osarch, "%s/%s", h->facts.os,
			    h->facts.arch);
			snprintf(cpu, sizeof cpu, "%s", h->facts.cpu_model);
			snprintf(cores, sizeof cores, "%u", h->facts.cores);
			snprintf(load, sizeof load, "%.2f", h->facts.load[0]);
		}
		printf("%-*s %-9s %-*s %-6.6s %-8s %-16s %-28s %5s %6s %10s  "
		    "%s\n", (int)wname, h->name, rows[i].p.reach, (int)wkey,
		    rows[i].p.hostkey, rows[i].p.auth, rows[i].p.agent, osarch,
		    cpu, cores, load, rows[i].p.disk, rows[i].ready == 2 ?
		    "slurm" : check_ready(rows[i].h, rows[i].ready));
	}
	for (i = 0; i < n; i++) {
		h = rows[i].h;
		if (rows[i].ready == 2) {
			printf("\n%s: a Slurm host, allocated by orch run: "
			    "%s\n", h->name, rows[i].part);
			continue;
		}
		if (!rows[i].ready && h->agent_stale) {
			/* Not a reason to refuse: orch run deploys it. */
			printf("\n%s: %s\n", h->name,
			    check_unnamed(h, rows[i].error));
			continue;
		}
		if (!rows[i].ready) {
			all = 0;
			printf("\n%s: not ready: %s\n", h->name,
			    check_unnamed(h, rows[i].error));
			continue;
		}
		printf("\n%s: facts: governor=%s boost=%s smt=%s aslr=%s "
		    "thp=%s vm=%s", h->name, check_or(h, "governor"),
		    check_or(h, "boost"), check_or(h, "smt"),
		    check_or(h, "aslr"), check_or(h, "thp"),
		    check_or(h, "vm"));
		if (*check_fact(h, "model") != '\0')
			printf(" model=%s", check_fact(h, "model"));
		if (*check_fact(h, "perf_cores") != '\0')
			printf(" perf_cores=%s efficiency_cores=%s",
			    check_fact(h, "perf_cores"),
			    check_or(h, "efficiency_cores"));
		printf("\n");
		check_agent_source(h);
		check_route(h);
		if (rows[i].nwarn == 0)
			continue;
		printf("%s: %d warning%s:\n", h->name, rows[i].nwarn,
		    rows[i].nwarn == 1 ? "" : "s");
		p = rows[i].warnings;
		save = NULL;
		for (line = strtok_r(p, "\n", &save); line != NULL;
		    line = strtok_r(NULL, "\n", &save))
			printf("  - %s\n", line);
	}
	free(rows);
	inventory_free(inv);
	return (all ? 0 : 3);
}

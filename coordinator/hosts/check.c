/* orch check: a readiness table per host, and what to fix before measuring. */
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coordinator/hosts/check.h"
#include "coordinator/hosts/host-route.h"
#include "coordinator/hosts/host.h"
#include "coordinator/hosts/inventory.h"
#include "coordinator/hosts/slurm-check.h"
#include "coordinator/hosts/slurm-login.h"
#include "coordinator/hosts/slurm.h"
#include "coordinator/input/defaults.h"
#include "coordinator/input/tty.h"
#include "proto/log.h"
#include "proto/util.h"
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
	int		 told;		/* part is said on a line of its own */
	char		 ssh[512];	/* SSH to an allocated node: what
					   --allocate found, or why not */
	size_t		 index;		/* of the row: its job's name */
	struct slurm_probe sp;		/* --allocate: the node held */
};

/* --allocate: hold a node of each Slurm host and try SSH to it. */
static int		 check_allocate;

/*
 * The signal that interrupts orch check --allocate (0: none), set by the
 * handler, read by every host's thread: a node held is released, and
 * none is probed any more.
 */
static atomic_int	 check_stop;

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
	row->told = 1;
	snprintf(row->ssh, sizeof row->ssh, "not probed (orch check "
	    "--allocate holds a node for seconds to try)");
	row->ready = 2;
}

/*
 * An ordinary host, or a Slurm host's node held for the check: probed
 * (reach, host key, auth, agent, disk), its agent opened and closed.
 */
static void
check_host(struct check_row *row)
{
	struct host		*h = row->h;
	struct host_probe	*p = &row->p;

	if (h->ops->probe(h, p, row->error, sizeof row->error) != 0)
		return;
	h->no_deploy = 1;
	if (host_open(h, "check") != 0) {
		snprintf(row->error, sizeof row->error, "%s", h->error);
		host_close(h);
		return;
	}
	snprintf(p->agent, sizeof p->agent, "%s", h->agent_version);
	h->ops->probe_open(h, p);
	host_close(h);
	check_clean(row);
	row->nwarn = check_warnings(h, row->warnings, sizeof row->warnings);
	row->ready = 1;
}

/*
 * Says what SSH to the node held did: allowed (the session opened, the
 * agent or not), or refused, the row then not ready with why. job: the
 * node's job as the lines say it.
 */
static void
check_held_ssh(struct check_row *row, const char *job)
{
	char	why[HOST_ERR_LEN], *p;

	if (strcmp(row->p.auth, "ok") == 0) {
		snprintf(row->ssh, sizeof row->ssh, "allowed: node %s held for "
		    "this check (%s)", row->sp.job.node, job);
		/* orch deploy has no node to install it on: only a run. */
		if (row->h->agent_stale && (p = strstr(row->error,
		    " (orch deploy")) != NULL)
			*p = '\0';
		return;
	}
	snprintf(why, sizeof why, "%s", check_unnamed(row->h, row->error));
	snprintf(row->error, sizeof row->error, "node %s held for this check "
	    "(%s): ssh to an allocated node refused: %s", row->sp.job.node,
	    job, why);
	row->ssh[0] = '\0';
	row->ready = 0;
}

/* A job not given back: the row is not ready, and says so after the rest. */
static void
check_unreleased(struct check_row *row, const char *job, const char *cause)
{
	size_t	n;

	/* A refusal stays told, the release after it. */
	if (row->ready || row->h->agent_stale || row->error[0] == '\0')
		snprintf(row->error, sizeof row->error, "node %s held for this "
		    "check (%s)", row->sp.job.node, job);
	n = strlen(row->error);
	snprintf(row->error + n, sizeof row->error - n, "; not released: %s",
	    check_unnamed(row->h, cause));
	row->h->agent_stale = 0;
	row->ready = 0;
}

/*
 * --allocate: holds a node for the Slurm host of row, as orch run would,
 * probes it as an ordinary host, and gives it back, on every path.
 */
static void
check_held(struct check_row *row)
{
	char	name[64], job[192], *cause = NULL;
	int	r;

	snprintf(name, sizeof name, "orch-check-%ld-%zu", (long)getpid(),
	    row->index);
	row->ssh[0] = '\0';
	if ((r = slurm_probe_alloc(row->h, &row->sn, name, &row->sp,
	    &cause)) != 0) {
		/* Busy: not probed, ready as without --allocate. */
		snprintf(r == 1 ? row->ssh : row->error, r == 1 ?
		    sizeof row->ssh : sizeof row->error, "%s", cause);
		row->ready = r == 1 ? 2 : 0;
		free(cause);
		return;
	}
	snprintf(row->p.reach, sizeof row->p.reach, "-");
	row->ready = 0;
	if (!check_stop)
		check_host(row);
	r = slurm_probe_release(&row->sp, row->h->name, &cause);
	snprintf(job, sizeof job, "Slurm job %s, partition %s%s",
	    row->sp.job.id, row->sp.job.partition, r == 0 ? ", released" :
	    "");
	/* Ctrl-C before or during the probe: what it found is not told. */
	if (check_stop) {
		snprintf(row->error, sizeof row->error, "node %s held for "
		    "this check (%s): interrupted", row->sp.job.node, job);
		row->ready = 0;
	} else
		check_held_ssh(row, job);
	if (r != 0)
		check_unreleased(row, job, cause);
	free(cause);
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
		if (row->ready == 2 && check_allocate)
			check_held(row);
		return (NULL);
	}
	check_host(row);
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

/*
 * --allocate: Ctrl-C and SIGTERM release the nodes held (check_stop) and
 * revoke a request under way (slurm_stop_on), as orch run's do.
 */
static void
check_signals(void)
{
	/* A second Ctrl-C ends orch; the jobs' short time limit, the rest. */
	util_stop_signals(&check_stop);
	slurm_stop_on(&check_stop);
}

/* Prints the readiness table, one line a host. */
static void
check_table(const struct check_row *rows, size_t n)
{
	const struct host	*h;
	size_t			 i, wname = 4, wkey = 8;

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
}

/* Prints a ready host's facts, agent source, route and warnings. */
static void
check_facts(struct check_row *row, const char *nl)
{
	const struct host	*h = row->h;
	char			*line, *save = NULL;

	printf("%s%s: facts: governor=%s boost=%s smt=%s aslr=%s thp=%s "
	    "vm=%s", nl, h->name, check_or(h, "governor"),
	    check_or(h, "boost"), check_or(h, "smt"), check_or(h, "aslr"),
	    check_or(h, "thp"), check_or(h, "vm"));
	if (*check_fact(h, "model") != '\0')
		printf(" model=%s", check_fact(h, "model"));
	if (*check_fact(h, "perf_cores") != '\0')
		printf(" perf_cores=%s efficiency_cores=%s",
		    check_fact(h, "perf_cores"),
		    check_or(h, "efficiency_cores"));
	printf("\n");
	/* orch deploy has no node of a Slurm host to install it on. */
	if (!row->told)
		check_agent_source(h);
	check_route(h);
	if (row->nwarn == 0)
		return;
	printf("%s: %d warning%s:\n", h->name, row->nwarn,
	    row->nwarn == 1 ? "" : "s");
	for (line = strtok_r(row->warnings, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save))
		printf("  - %s\n", line);
}

/*
 * Prints what is known of row's host below the table. Returns 0 when it
 * is not ready (orch check exits 3), else 1.
 */
static int
check_print(struct check_row *row)
{
	const struct host	*h = row->h;
	const char		*nl = "\n";

	if (row->told) {
		printf("\n%s: a Slurm host, allocated by orch run: %s\n",
		    h->name, row->part);
		if (row->ssh[0] != '\0')
			printf("%s: ssh to an allocated node: %s\n", h->name,
			    row->ssh);
		nl = "";
	}
	if (row->ready == 2)
		return (1);
	if (!row->ready && h->agent_stale) {
		/* Not a reason to refuse: orch run deploys it. */
		printf("%s%s: %s\n", nl, h->name,
		    check_unnamed(h, row->error));
		return (1);
	}
	if (!row->ready) {
		printf("%s%s: not ready: %s\n", nl, h->name,
		    check_unnamed(h, row->error));
		return (0);
	}
	check_facts(row, nl);
	return (1);
}

int
check_main(struct host *hosts, size_t n, const char *inventory, int allocate)
{
	struct check_row	*rows;
	const struct inventory	*inv;
	size_t			 i;
	int			 all = 1, required;
	char			*cause = NULL;

	rows = xcalloc(n, sizeof *rows);
	check_allocate = allocate;
	if (allocate)
		check_signals();
	/* A cluster's login host is looked up where the hosts were. */
	slurm_login_inventory(inventory);
	/* The hosts resolved from it: it loads, and names Slurm's. */
	if (inventory_get(inventory_path(inventory, &required), required,
	    &inv, &cause) != 0) {
		free(cause);
		inv = NULL;
	}
	for (i = 0; i < n; i++) {
		rows[i].h = &hosts[i];
		rows[i].index = i;
		rows[i].slurm = inventory_slurm_host(inv, hosts[i].name,
		    &rows[i].sn);
	}
	host_each(rows, n, sizeof *rows, check_thread);
	slurm_login_close();
	check_table(rows, n);
	for (i = 0; i < n; i++)
		all &= check_print(&rows[i]);
	free(rows);
	if (check_stop)
		return (128 + (int)check_stop);
	return (all ? 0 : 3);
}

/* orch check: a readiness table per host, and what to fix before measuring. */
#include <sys/statvfs.h>

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/check.h"
#include "coordinator/deploy.h"
#include "coordinator/host.h"
#include "coordinator/ssh.h"
#include "proto/log.h"
#include "proto/xmalloc.h"

struct check_row {
	struct host	*h;
	char		 reach[64];
	char		 hostkey[160];
	char		 auth[160];
	char		 agent[64];
	char		 disk[32];
	char		 warnings[2048];
	int		 nwarn;
	int		 ready;
	char		 error[HOST_ERR_LEN];
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
	if (h->facts.cores > 0) {
		per_core = h->facts.load[0] / h->facts.cores;
		if (per_core > 1.0 / 3)
			W("1-minute load %.2f is above a third of %u cores: a "
			    "run would wait\n", h->facts.load[0],
			    h->facts.cores);
	}
	if (strcmp(h->facts.os, "darwin") == 0)
		W("macOS has no CPU affinity: pin = is not applied there\n");
#undef W
	return (n);
}

static void *
check_thread(void *arg)
{
	struct check_row	*row = arg;
	struct host		*h = row->h;
	struct ssh		 s;
	struct ssh_target	 t;
	struct statvfs		 sv;
	char			 err[HOST_ERR_LEN], how[256], wd[PATH_MAX];
	char			 out[1024], errb[1024];
	unsigned long long	 kb;

	snprintf(row->reach, sizeof row->reach, "-");
	snprintf(row->hostkey, sizeof row->hostkey, "-");
	snprintf(row->auth, sizeof row->auth, "-");
	snprintf(row->agent, sizeof row->agent, "-");
	snprintf(row->disk, sizeof row->disk, "-");
	if (h->ops == &host_ssh_ops) {
		host_ssh_target(h, &t);
		if (ssh_open(&s, &t, err, sizeof err) != 0) {
			snprintf(row->error, sizeof row->error, "%s", err);
			if (strstr(err, "cannot connect") != NULL ||
			    strstr(err, "resolve") != NULL)
				snprintf(row->reach, sizeof row->reach, "no");
			else
				snprintf(row->reach, sizeof row->reach, "yes");
			if (strstr(err, "host key") != NULL ||
			    strstr(err, "HOST KEY") != NULL)
				snprintf(row->hostkey, sizeof row->hostkey,
				    "REFUSED");
			else if (strstr(err, "authentication") != NULL) {
				snprintf(row->hostkey, sizeof row->hostkey,
				    "ok");
				snprintf(row->auth, sizeof row->auth, "FAILED");
			}
			return (NULL);
		}
		snprintf(row->reach, sizeof row->reach, "yes");
		snprintf(row->hostkey, sizeof row->hostkey, "%s",
		    s.hostkey_status);
		snprintf(row->auth, sizeof row->auth, "ok");
		if (deploy_agent(&s, h, -1, how, sizeof how, err,
		    sizeof err) != 0) {
			snprintf(row->agent, sizeof row->agent, "%s",
			    strstr(err, "outdated") != NULL ? "outdated" :
			    "missing");
			snprintf(row->error, sizeof row->error, "%s", err);
			ssh_close(&s);
			return (NULL);
		}
		if (deploy_workdir(h, wd, sizeof wd) == 0) {
			char	*argv[] = { (char *)(uintptr_t)"sh",
				    (char *)(uintptr_t)"-c",
				    (char *)(uintptr_t)"mkdir -p \"$1\" && "
				    "df -Pk \"$1\" | tail -1",
				    (char *)(uintptr_t)"orch-check", wd, NULL };

			if (ssh_run(&s, argv, NULL, out, sizeof out, errb,
			    sizeof errb, 10000) == 0 &&
			    sscanf(out, "%*s %*s %*s %llu", &kb) == 1)
				snprintf(row->disk, sizeof row->disk,
				    "%.1f GiB", (double)kb / (1024 * 1024));
		}
		ssh_close(&s);
	} else
		snprintf(row->reach, sizeof row->reach, "local");

	h->no_deploy = 1;
	if (host_open(h, "check") != 0) {
		snprintf(row->error, sizeof row->error, "%s", h->error);
		host_close(h);
		return (NULL);
	}
	snprintf(row->agent, sizeof row->agent, "%s", h->agent_version);
	if (h->ops != &host_ssh_ops && statvfs(h->facts.workdir, &sv) == 0)
		snprintf(row->disk, sizeof row->disk, "%.1f GiB",
		    (double)sv.f_bavail * (double)sv.f_frsize / (1 << 30));
	host_close(h);
	row->nwarn = check_warnings(h, row->warnings, sizeof row->warnings);
	row->ready = 1;
	return (NULL);
}

/* Says where orch deploy gets an SSH host's agent: prebuilt, or built there. */
static void
check_agent_source(const struct host *h)
{
	char	path[PATH_MAX];

	if (h->ops != &host_ssh_ops)
		return;
	if (deploy_prebuilt_path(h->facts.os, h->facts.arch, path,
	    sizeof path) == 0)
		printf("%s: agent: orch deploy pushes the prebuilt %s-%s agent "
		    "(%s)\n", h->name, h->facts.os, h->facts.arch, path);
	else
		printf("%s: agent: no prebuilt %s-%s agent here; orch deploy "
		    "builds it from source on the host\n", h->name,
		    h->facts.os, h->facts.arch);
}

int
check_main(struct host *hosts, size_t n)
{
	struct check_row	*rows;
	struct host		*h;
	size_t			 i;
	int			 all = 1;
	char			*p, *line, *save;

	rows = xcalloc(n, sizeof *rows);
	for (i = 0; i < n; i++)
		rows[i].h = &hosts[i];
	host_each(rows, n, sizeof *rows, check_thread);

	printf("%-12s %-9s %-10s %-6s %-8s %-16s %-28s %5s %6s %10s  %s\n",
	    "HOST", "REACHABLE", "HOST KEY", "AUTH", "AGENT", "OS/ARCH", "CPU",
	    "CORES", "LOAD", "DISK FREE", "READY");
	for (i = 0; i < n; i++) {
		char	osarch[40] = "-", cpu[29] = "-", cores[8] = "-";
		char	load[16] = "-";

		h = rows[i].h;
		if (rows[i].ready) {
			snprintf(osarch, sizeof osarch, "%s/%s", h->facts.os,
			    h->facts.arch);
			snprintf(cpu, sizeof cpu, "%s", h->facts.cpu_model);
			snprintf(cores, sizeof cores, "%u", h->facts.cores);
			snprintf(load, sizeof load, "%.2f", h->facts.load[0]);
		}
		printf("%-12s %-9s %-10.10s %-6.6s %-8s %-16s %-28s %5s %6s "
		    "%10s  %s\n", h->name, rows[i].reach, rows[i].hostkey,
		    rows[i].auth, rows[i].agent, osarch, cpu, cores, load,
		    rows[i].disk, rows[i].ready ? "yes" : "NO");
	}
	for (i = 0; i < n; i++) {
		h = rows[i].h;
		if (!rows[i].ready) {
			all = 0;
			printf("\n%s: not ready: %s\n", h->name, rows[i].error);
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
	return (all ? 0 : 3);
}

/* macOS facts and counters from sysctl and proc_pid_rusage answers. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "agent/facts-sysctl.h"
#include "agent/facts.h"

int
facts_sysctl_str(facts_sysctl_fn fn, const char *name, char *buf, size_t len)
{
	size_t	n = len;

	if (len == 0 || fn(name, buf, &n) == -1 || n == 0)
		return (-1);
	/* The answer counts its NUL; a string that filled buf loses a byte. */
	buf[n < len ? n : len - 1] = '\0';
	return (buf[0] == '\0' ? -1 : 0);
}

int
facts_sysctl_u64(facts_sysctl_fn fn, const char *name, uint64_t *v)
{
	union {
		uint32_t	u32;
		uint64_t	u64;
	}	u;
	size_t	n = sizeof u;

	memset(&u, 0, sizeof u);
	if (fn(name, &u, &n) == -1)
		return (-1);
	if (n == sizeof u.u32)
		*v = u.u32;
	else if (n == sizeof u.u64)
		*v = u.u64;
	else
		return (-1);
	return (0);
}

/* Adds an integer sysctl as an extra fact when it exists. */
static void
facts_sysctl_extra_u64(struct proto_facts *f, facts_sysctl_fn fn,
    const char *key, const char *name)
{
	char		buf[32];
	uint64_t	v;

	if (facts_sysctl_u64(fn, name, &v) == 0) {
		snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
		facts_extra(f, key, buf);
	}
}

void
facts_sysctl_fill(struct proto_facts *f, facts_sysctl_fn fn)
{
	char		buf[128];
	uint64_t	v, phys;

	if (facts_sysctl_str(fn, "machdep.cpu.brand_string", buf,
	    sizeof buf) == 0)
		facts_copy(f->cpu_model, sizeof f->cpu_model, buf);
	if (facts_sysctl_str(fn, "kern.osrelease", buf, sizeof buf) == 0)
		facts_copy(f->kernel, sizeof f->kernel, buf);
	f->mem_kb = facts_sysctl_u64(fn, "hw.memsize", &v) == 0 ? v / 1024 : 0;

	f->nextra = 0;
	if (facts_sysctl_str(fn, "hw.model", buf, sizeof buf) == 0)
		facts_extra(f, "model", buf);
	if (facts_sysctl_str(fn, "kern.osproductversion", buf, sizeof buf) == 0)
		facts_extra(f, "macos", buf);
	/* Apple silicon: perflevel0 is the performance cores, 1 the others. */
	facts_sysctl_extra_u64(f, fn, "perf_cores", "hw.perflevel0.logicalcpu");
	facts_sysctl_extra_u64(f, fn, "efficiency_cores",
	    "hw.perflevel1.logicalcpu");
	/* Hyper-threading exists on Intel Macs only. */
	if (facts_sysctl_u64(fn, "hw.physicalcpu", &phys) == 0 &&
	    facts_sysctl_u64(fn, "hw.logicalcpu", &v) == 0)
		facts_extra(f, "smt", v > phys ? "on" : "off");
	/* Intel Macs only; Apple silicon publishes no frequency. */
	if (facts_sysctl_u64(fn, "hw.cpufrequency_max", &v) == 0 && v > 0) {
		snprintf(buf, sizeof buf, "%llu",
		    (unsigned long long)(v / 1000000));
		facts_extra(f, "cpu_max_mhz", buf);
	}
	/* Always on for user programs; there is no switch to read. */
	facts_extra(f, "aslr", "on");
	if (facts_sysctl_u64(fn, "kern.hv_vmm_present", &v) == 0)
		facts_extra(f, "vm", v != 0 ? "yes" : "no");
	else
		facts_extra(f, "vm", "unknown");
	/* An x86_64 agent on Apple silicon measures Rosetta, not the CPU. */
	if (facts_sysctl_u64(fn, "sysctl.proc_translated", &v) == 0)
		facts_extra(f, "rosetta", v != 0 ? "yes" : "no");
}

uint32_t
facts_sysctl_cores(facts_sysctl_fn fn)
{
	uint64_t	v;

	if (facts_sysctl_u64(fn, "hw.logicalcpu", &v) == 0 && v >= 1 &&
	    v <= UINT32_MAX)
		return ((uint32_t)v);
	return (0);
}

/*
 * The counters orch knows (as facts-linux.c and the suite parser), and
 * whether proc_pid_rusage gives them.
 */
static const struct {
	const char	*name;
	int		 have;
} facts_rusage_names[] = {
	{ "instructions", 1 }, { "cycles", 1 }, { "branches", 0 },
	{ "branch-misses", 0 }, { "cache-misses", 0 },
	{ "context-switches", 0 }, { "task-clock", 0 }, { "page-faults", 0 },
	{ "cpu-migrations", 0 },
};

int
facts_rusage_open(struct facts_counters *c, const char *list, char *err,
    size_t errlen)
{
	char	buf[256], *tok, *save = NULL;
	size_t	i, nnames = sizeof facts_rusage_names /
		    sizeof facts_rusage_names[0];
	size_t	el;

	memset(c, 0, sizeof *c);
	if (errlen > 0)
		err[0] = '\0';
	if (list == NULL || *list == '\0')
		return (0);
	snprintf(buf, sizeof buf, "%s", list);
	for (tok = strtok_r(buf, ", ", &save); tok != NULL;
	    tok = strtok_r(NULL, ", ", &save)) {
		for (i = 0; i < nnames; i++) {
			if (strcmp(tok, facts_rusage_names[i].name) == 0)
				break;
		}
		if (i == nnames) {
			snprintf(err, errlen, "unknown counter '%s'", tok);
			goto fail;
		}
		if (!facts_rusage_names[i].have) {
			el = strlen(err);
			snprintf(err + el, errlen - el, "%scounter '%s' is not "
			    "available on macOS (proc_pid_rusage gives "
			    "instructions and cycles)", el > 0 ? "; " : "",
			    tok);
			continue;
		}
		if (c->n == FACTS_COUNTERS_MAX) {
			snprintf(err, errlen, "more than %d counters",
			    FACTS_COUNTERS_MAX);
			goto fail;
		}
		c->fd[c->n] = -1;
		facts_copy(c->name[c->n], sizeof c->name[c->n], tok);
		c->n++;
	}
	return (c->n);
fail:
	memset(c, 0, sizeof *c);
	return (-1);
}

/* Reads a native-endian uint64_t at p, which may be unaligned. */
static uint64_t
facts_rusage_u64(const unsigned char *p)
{
	uint64_t	v;

	memcpy(&v, p, sizeof v);
	return (v);
}

int
facts_rusage_take(struct facts_counters *c, const void *ri, size_t len)
{
	const unsigned char	*p = ri;
	int			 i;

	if (len < FACTS_RI_V4_CYCLES + sizeof(uint64_t))
		return (-1);
	for (i = 0; i < c->n; i++) {
		if (strcmp(c->name[i], "instructions") == 0)
			c->value[i] = facts_rusage_u64(p +
			    FACTS_RI_V4_INSTRUCTIONS);
		else if (strcmp(c->name[i], "cycles") == 0)
			c->value[i] = facts_rusage_u64(p + FACTS_RI_V4_CYCLES);
	}
	c->taken = 1;
	return (0);
}

void
facts_rusage_close(struct facts_counters *c, struct proto_sample *s)
{
	int	i;

	for (i = 0; s != NULL && c->taken && i < c->n; i++) {
		if (s->nmetrics >= PROTO_METRICS_MAX)
			break;
		facts_copy(s->metrics[s->nmetrics].key,
		    sizeof s->metrics[s->nmetrics].key, c->name[i]);
		s->metrics[s->nmetrics++].value = (double)c->value[i];
	}
	c->n = 0;
	c->taken = 0;
}

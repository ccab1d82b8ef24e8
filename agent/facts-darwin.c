/* Machine facts, CPU pinning (none) and rusage units on macOS. */
#include <sys/types.h>
#include <sys/resource.h>
#include <sys/sysctl.h>
#include <sys/utsname.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/facts.h"

/* Copies src into dst (len bytes), truncating, always NUL-terminated. */
static void
facts_copy(char *dst, size_t len, const char *src)
{
	size_t	n = strlen(src);

	if (len == 0)
		return;
	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Reads a string sysctl into buf; returns 0, or -1 when absent. */
static int
facts_sysctl_str(const char *name, char *buf, size_t len)
{
	size_t	n = len;

	if (len == 0 || sysctlbyname(name, buf, &n, NULL, 0) == -1 || n == 0)
		return (-1);
	buf[n < len ? n : len - 1] = '\0';
	return (buf[0] == '\0' ? -1 : 0);
}

/*
 * Reads an integer sysctl: byte counts and frequencies are 64-bit, the rest
 * 32-bit (xnu's sys/sysctl.h). Returns 0, or -1 when absent.
 */
static int
facts_sysctl_u64(const char *name, uint64_t *v)
{
	union {
		uint32_t	u32;
		uint64_t	u64;
	}	u;
	size_t	n = sizeof u;

	memset(&u, 0, sizeof u);
	if (sysctlbyname(name, &u, &n, NULL, 0) == -1)
		return (-1);
	if (n == sizeof u.u32)
		*v = u.u32;
	else if (n == sizeof u.u64)
		*v = u.u64;
	else
		return (-1);
	return (0);
}

/* Adds key=value to the extra facts, if there is room. */
static void
facts_extra(struct proto_facts *f, const char *key, const char *value)
{
	struct proto_kv	*kv;

	if (f->nextra >= PROTO_FACTS_EXTRA_MAX)
		return;
	kv = &f->extra[f->nextra++];
	facts_copy(kv->key, sizeof kv->key, key);
	facts_copy(kv->value, sizeof kv->value, value);
}

/* Adds an integer sysctl as an extra fact when it exists. */
static void
facts_extra_u64(struct proto_facts *f, const char *key, const char *name)
{
	char		buf[32];
	uint64_t	v;

	if (facts_sysctl_u64(name, &v) == 0) {
		snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
		facts_extra(f, key, buf);
	}
}

int
facts_collect(struct proto_facts *f)
{
	struct utsname	u;
	char		buf[128];
	uint64_t	v, phys;
	double		load[3];
	int		i;

	facts_copy(f->os, sizeof f->os, "darwin");
	if (uname(&u) == 0) {
		facts_copy(f->arch, sizeof f->arch,
		    strcmp(u.machine, "arm64") == 0 ? "aarch64" :
		    strcmp(u.machine, "amd64") == 0 ? "x86_64" : u.machine);
		facts_copy(f->kernel, sizeof f->kernel, u.release);
		facts_copy(f->cpu_model, sizeof f->cpu_model, u.machine);
	}
	if (facts_sysctl_str("machdep.cpu.brand_string", buf, sizeof buf) == 0)
		facts_copy(f->cpu_model, sizeof f->cpu_model, buf);
	if (gethostname(buf, sizeof buf) == 0) {
		buf[sizeof buf - 1] = '\0';
		facts_copy(f->hostname, sizeof f->hostname, buf);
	}
	f->cores = facts_cores();
	f->mem_kb = facts_sysctl_u64("hw.memsize", &v) == 0 ? v / 1024 : 0;
	for (i = 0; i < 3; i++)
		f->load[i] = 0;
	if (getloadavg(load, 3) == 3) {
		for (i = 0; i < 3; i++)
			f->load[i] = load[i];
	}

	f->nextra = 0;
	if (facts_sysctl_str("hw.model", buf, sizeof buf) == 0)
		facts_extra(f, "model", buf);
	if (facts_sysctl_str("kern.osproductversion", buf, sizeof buf) == 0)
		facts_extra(f, "macos", buf);
	/* Apple silicon: perflevel0 is the performance cores, 1 the others. */
	facts_extra_u64(f, "perf_cores", "hw.perflevel0.logicalcpu");
	facts_extra_u64(f, "efficiency_cores", "hw.perflevel1.logicalcpu");
	/* Hyper-threading exists on Intel Macs only. */
	if (facts_sysctl_u64("hw.physicalcpu", &phys) == 0 &&
	    facts_sysctl_u64("hw.logicalcpu", &v) == 0)
		facts_extra(f, "smt", v > phys ? "on" : "off");
	/* Intel Macs only; Apple silicon publishes no frequency. */
	if (facts_sysctl_u64("hw.cpufrequency_max", &v) == 0 && v > 0) {
		snprintf(buf, sizeof buf, "%llu",
		    (unsigned long long)(v / 1000000));
		facts_extra(f, "cpu_max_mhz", buf);
	}
	/* Always on for user programs; there is no switch to read. */
	facts_extra(f, "aslr", "on");
	if (facts_sysctl_u64("kern.hv_vmm_present", &v) == 0)
		facts_extra(f, "vm", v != 0 ? "yes" : "no");
	else
		facts_extra(f, "vm", "unknown");
	/* An x86_64 agent on Apple silicon measures Rosetta, not the CPU. */
	if (facts_sysctl_u64("sysctl.proc_translated", &v) == 0)
		facts_extra(f, "rosetta", v != 0 ? "yes" : "no");
	return (0);
}

double
facts_load1(void)
{
	double	load;

	if (getloadavg(&load, 1) != 1)
		return (-1);
	return (load);
}

uint32_t
facts_cores(void)
{
	uint64_t	v;
	long		n;

	if (facts_sysctl_u64("hw.logicalcpu", &v) == 0 && v >= 1 &&
	    v <= UINT32_MAX)
		return ((uint32_t)v);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return (n < 1 ? 1 : (uint32_t)n);
}

uint64_t
facts_maxrss_kb(const struct rusage *ru)
{
	/* macOS reports bytes. */
	return (ru->ru_maxrss < 0 ? 0 : (uint64_t)ru->ru_maxrss / 1024);
}

int
facts_pin(const char *list, char *err, size_t errlen)
{
	/* Restoring "all CPUs" is what the process already has. */
	if (list == NULL || *list == '\0') {
		if (errlen > 0)
			err[0] = '\0';
		return (0);
	}
	snprintf(err, errlen, "CPU affinity is not supported on macOS");
	return (-1);
}

/* macOS has no perf_event_open; kperf is private. */
int
facts_counters_open(struct facts_counters *c, const char *list, char *err,
    size_t errlen)
{
	memset(c, 0, sizeof *c);
	if (list == NULL || *list == '\0')
		return (0);
	snprintf(err, errlen, "hardware counters are not available on macOS");
	return (-1);
}

void
facts_counters_close(struct facts_counters *c, struct proto_sample *s)
{
	(void)s;
	c->n = 0;
}

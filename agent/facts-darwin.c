/*
 * Machine facts, CPU pinning (none), rusage units and counters on macOS:
 * the calls. What their answers mean is facts-sysctl.c, tested on any OS.
 */
#include <sys/types.h>
#include <sys/resource.h>
#include <sys/sysctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include <libproc.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/facts-sysctl.h"
#include "agent/facts.h"
#include "proto/util.h"

/* The layout facts-sysctl.c reads, checked against Apple's header. */
_Static_assert(sizeof(struct rusage_info_v4) == FACTS_RI_V4_SIZE,
    "struct rusage_info_v4 size");
_Static_assert(offsetof(struct rusage_info_v4, ri_instructions) ==
    FACTS_RI_V4_INSTRUCTIONS, "ri_instructions offset");
_Static_assert(offsetof(struct rusage_info_v4, ri_cycles) ==
    FACTS_RI_V4_CYCLES, "ri_cycles offset");

/* sysctlbyname, read only. */
static int
facts_sysctlbyname(const char *name, void *buf, size_t *len)
{
	return (sysctlbyname(name, buf, len, NULL, 0) == -1 ? -1 : 0);
}

/*
 * The platform UUID (IOPlatformUUID, which the kernel publishes as
 * kern.uuid: no IOKit needed), else this boot's session UUID.
 */
void
facts_machine(char hex[PROTO_SHA_HEX])
{
	char	buf[128];
	size_t	len = sizeof buf - 1;

	hex[0] = '\0';
	memset(buf, 0, sizeof buf);
	if (facts_sysctlbyname("kern.uuid", buf, &len) == 0 && buf[0] != '\0') {
		facts_machine_hash("platform-uuid", buf, hex);
		return;
	}
	len = sizeof buf - 1;
	memset(buf, 0, sizeof buf);
	if (facts_sysctlbyname("kern.bootsessionuuid", buf, &len) == 0 &&
	    buf[0] != '\0')
		facts_machine_hash("boot-id", buf, hex);
}

int
facts_collect(struct proto_facts *f)
{
	struct utsname	u;
	char		buf[128];
	double		load[3];
	int		i;

	facts_copy(f->os, sizeof f->os, "darwin");
	if (uname(&u) == 0) {
		facts_copy(f->arch, sizeof f->arch, util_arch(u.machine));
		facts_copy(f->kernel, sizeof f->kernel, u.release);
		facts_copy(f->cpu_model, sizeof f->cpu_model, u.machine);
	}
	if (gethostname(buf, sizeof buf) == 0) {
		buf[sizeof buf - 1] = '\0';
		facts_copy(f->hostname, sizeof f->hostname, buf);
	}
	facts_machine(f->machine);
	f->cores = facts_cores();
	for (i = 0; i < 3; i++)
		f->load[i] = 0;
	if (getloadavg(load, 3) == 3) {
		for (i = 0; i < 3; i++)
			f->load[i] = load[i];
	}
	facts_sysctl_fill(f, facts_sysctlbyname);
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
	uint32_t	v;
	long		n;

	if ((v = facts_sysctl_cores(facts_sysctlbyname)) != 0)
		return (v);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return (n < 1 ? 1 : (uint32_t)n);
}

/* macOS has no CPU affinity to narrow this. */
uint32_t
facts_cpus_usable(void)
{
	return (facts_cores());
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

/*
 * No perf_event_open (kperf is private): proc_pid_rusage gives each
 * process's instructions and cycles, read from the exited child before it
 * is reaped (facts_counters_child). They count the benchmark process only,
 * not its children.
 */
int
facts_counters_open(struct facts_counters *c, const char *list, char *err,
    size_t errlen)
{
	return (facts_rusage_open(c, list, err, errlen));
}

void
facts_counters_child(struct facts_counters *c, pid_t pid)
{
	struct rusage_info_v4	ri;
	siginfo_t		si;

	if (c->n == 0)
		return;
	/* Only an exited child's counts are final; WNOWAIT leaves it. */
	memset(&si, 0, sizeof si);
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == -1 ||
	    si.si_pid != pid)
		return;
	memset(&ri, 0, sizeof ri);
	if (proc_pid_rusage(pid, RUSAGE_INFO_V4, (rusage_info_t *)&ri) == 0)
		(void)facts_rusage_take(c, &ri, sizeof ri);
}

void
facts_counters_close(struct facts_counters *c, struct proto_sample *s)
{
	facts_rusage_close(c, s);
}

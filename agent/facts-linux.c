/* Machine facts, CPU pinning and rusage units on Linux. */
#define _GNU_SOURCE

#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "agent/facts.h"
#include "proto/util.h"

#define FACTS_SYS_CPU	"/sys/devices/system/cpu"

/* The CPU set the process had before its first facts_pin(). */
static cpu_set_t	facts_orig;
static int		facts_have_orig;

/*
 * Reads the first line of path into buf without its newline and trailing
 * blanks. Returns 0, or -1 when it cannot be read or is empty.
 */
static int
facts_read_line(const char *path, char *buf, size_t len)
{
	FILE	*f;
	size_t	 n;
	int	 r = -1;

	if ((f = fopen(path, "re")) == NULL)
		return (-1);
	if (fgets(buf, (int)len, f) != NULL) {
		n = strlen(buf);
		while (n > 0 && isspace((unsigned char)buf[n - 1]))
			buf[--n] = '\0';
		if (n > 0)
			r = 0;
	}
	fclose(f);
	return (r);
}

/*
 * Finds "key : value" in /proc/cpuinfo and copies the first value into buf.
 * Returns 0, or -1 when absent.
 */
static int
facts_cpuinfo(const char *key, char *buf, size_t len)
{
	FILE		*f;
	char		 line[1024], *p, *v;
	size_t		 klen = strlen(key), n;
	int		 r = -1;

	if ((f = fopen("/proc/cpuinfo", "re")) == NULL)
		return (-1);
	while (fgets(line, sizeof line, f) != NULL) {
		if (strncmp(line, key, klen) != 0)
			continue;
		p = line + klen;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != ':')
			continue;
		v = p + 1;
		while (*v == ' ' || *v == '\t')
			v++;
		n = strlen(v);
		while (n > 0 && isspace((unsigned char)v[n - 1]))
			v[--n] = '\0';
		if (n == 0)
			continue;
		facts_copy(buf, len, v);
		r = 0;
		break;
	}
	fclose(f);
	return (r);
}

/* Returns 1 when the "flags" line of /proc/cpuinfo has word, else 0. */
static int
facts_cpuflag(const char *word)
{
	FILE	*f;
	char	 line[8192], *p, *save = NULL;
	int	 r = 0;

	if ((f = fopen("/proc/cpuinfo", "re")) == NULL)
		return (0);
	while (fgets(line, sizeof line, f) != NULL) {
		if (strncmp(line, "flags", 5) != 0 ||
		    (p = strchr(line, ':')) == NULL)
			continue;
		for (p = strtok_r(p + 1, " \t\n", &save); p != NULL;
		    p = strtok_r(NULL, " \t\n", &save)) {
			if (strcmp(p, word) == 0) {
				r = 1;
				break;
			}
		}
		break;
	}
	fclose(f);
	return (r);
}

/* Names an ARM Ltd core from its "CPU part" number, or returns NULL. */
static const char *
facts_arm_part(unsigned long part)
{
	static const struct {
		unsigned long	 part;
		const char	*name;
	} parts[] = {
		{ 0xd03, "Cortex-A53" }, { 0xd04, "Cortex-A35" },
		{ 0xd05, "Cortex-A55" }, { 0xd07, "Cortex-A57" },
		{ 0xd08, "Cortex-A72" }, { 0xd09, "Cortex-A73" },
		{ 0xd0a, "Cortex-A75" }, { 0xd0b, "Cortex-A76" },
		{ 0xd0c, "Neoverse-N1" }, { 0xd0d, "Cortex-A77" },
		{ 0xd40, "Neoverse-V1" }, { 0xd41, "Cortex-A78" },
		{ 0xd44, "Cortex-X1" }, { 0xd46, "Cortex-A510" },
		{ 0xd47, "Cortex-A710" }, { 0xd48, "Cortex-X2" },
		{ 0xd49, "Neoverse-N2" }, { 0xd4f, "Neoverse-V2" },
		{ 0xd80, "Cortex-A520" }, { 0xd81, "Cortex-A720" },
		{ 0xd82, "Cortex-X4" }, { 0xd84, "Neoverse-V3" },
		{ 0xd8e, "Neoverse-N3" },
	};
	size_t	i;

	for (i = 0; i < sizeof parts / sizeof parts[0]; i++) {
		if (parts[i].part == part)
			return (parts[i].name);
	}
	return (NULL);
}

/* Fills f->cpu_model from /proc/cpuinfo, else from the machine name. */
static void
facts_cpu_model(struct proto_facts *f, const char *machine)
{
	char		 impl[32], part[32];
	const char	*name;
	unsigned long	 p;

	if (facts_cpuinfo("model name", f->cpu_model,
	    sizeof f->cpu_model) == 0 ||
	    facts_cpuinfo("Hardware", f->cpu_model, sizeof f->cpu_model) == 0)
		return;
	if (facts_cpuinfo("CPU part", part, sizeof part) == 0) {
		p = strtoul(part, NULL, 0);
		if (facts_cpuinfo("CPU implementer", impl, sizeof impl) == -1)
			snprintf(impl, sizeof impl, "?");
		if (strtoul(impl, NULL, 0) == 0x41 &&
		    (name = facts_arm_part(p)) != NULL)
			snprintf(f->cpu_model, sizeof f->cpu_model, "ARM %s",
			    name);
		else if (strtoul(impl, NULL, 0) == 0)
			/* Implementer 0 is "software": QEMU's "max" CPU. */
			snprintf(f->cpu_model, sizeof f->cpu_model,
			    "QEMU (emulated, part %s)", part);
		else
			snprintf(f->cpu_model, sizeof f->cpu_model,
			    "implementer %s part %s", impl, part);
		return;
	}
	/* qemu's aarch64 emulation, for one, shows neither. */
	facts_copy(f->cpu_model, sizeof f->cpu_model, machine);
}

/* Returns "on"/"off" for a sysfs "1"/"0" (inverted when asked). */
static const char *
facts_onoff(const char *path, int inverted, const char *dflt)
{
	char	buf[32];

	if (facts_read_line(path, buf, sizeof buf) == -1)
		return (dflt);
	if (strcmp(buf, "1") == 0 || strcmp(buf, "on") == 0)
		return (inverted ? "off" : "on");
	if (strcmp(buf, "0") == 0 || strcmp(buf, "off") == 0)
		return (inverted ? "on" : "off");
	return (dflt);
}

/* Returns whether turbo/boost is enabled: "on", "off" or "unknown". */
static const char *
facts_boost(void)
{
	const char	*v;

	if (strcmp(v = facts_onoff(FACTS_SYS_CPU "/cpufreq/boost", 0, ""),
	    "") != 0)
		return (v);
	if (strcmp(v = facts_onoff(FACTS_SYS_CPU "/intel_pstate/no_turbo", 1,
	    ""), "") != 0)
		return (v);
	if (strcmp(v = facts_onoff(FACTS_SYS_CPU "/cpufreq/policy0/boost", 0,
	    ""), "") != 0)
		return (v);
	return ("unknown");
}

/* Returns the ASLR level in words. */
static const char *
facts_aslr(void)
{
	char	buf[16];

	if (facts_read_line("/proc/sys/kernel/randomize_va_space", buf,
	    sizeof buf) == -1)
		return ("unknown");
	if (strcmp(buf, "2") == 0)
		return ("on");
	if (strcmp(buf, "1") == 0)
		return ("partial");
	if (strcmp(buf, "0") == 0)
		return ("off");
	return ("unknown");
}

/* Copies the bracketed word of the transparent hugepage mode into buf. */
static void
facts_thp(char *buf, size_t len)
{
	char	line[256], *a, *b;

	if (facts_read_line("/sys/kernel/mm/transparent_hugepage/enabled",
	    line, sizeof line) == 0 && (a = strchr(line, '[')) != NULL &&
	    (b = strchr(a, ']')) != NULL) {
		*b = '\0';
		facts_copy(buf, len, a + 1);
		return;
	}
	snprintf(buf, len, "unknown");
}

/* Describes whether this is a virtual machine: "yes (KVM)", "yes", "no". */
static void
facts_vm(char *buf, size_t len)
{
	static const char *const paths[] = {
		"/sys/class/dmi/id/sys_vendor",
		"/sys/class/dmi/id/product_name",
		"/sys/hypervisor/type",
	};
	/* Hyper-V by product name: "Microsoft" alone also names Surfaces. */
	static const struct {
		const char	*needle;
		const char	*name;
	} names[] = {
		{ "KVM", "KVM" }, { "QEMU", "QEMU" }, { "VMware", "VMware" },
		{ "VirtualBox", "VirtualBox" }, { "innotek", "VirtualBox" },
		{ "Xen", "Xen" }, { "xen", "Xen" },
		{ "Virtual Machine", "Hyper-V" },
	};
	char	line[256];
	size_t	i, j;

	for (i = 0; i < sizeof paths / sizeof paths[0]; i++) {
		if (facts_read_line(paths[i], line, sizeof line) == -1)
			continue;
		for (j = 0; j < sizeof names / sizeof names[0]; j++) {
			if (strstr(line, names[j].needle) != NULL) {
				snprintf(buf, len, "yes (%s)", names[j].name);
				return;
			}
		}
	}
	facts_copy(buf, len, facts_cpuflag("hypervisor") ? "yes" : "no");
}

/* The machine id, else dbus's copy of it, else this boot's id, hashed. */
void
facts_machine(char hex[PROTO_SHA_HEX])
{
	static const char *const	 src[][2] = {
		{ "/etc/machine-id", "machine-id" },
		{ "/var/lib/dbus/machine-id", "machine-id" },
		{ "/proc/sys/kernel/random/boot_id", "boot-id" },
	};
	char				 buf[128];
	size_t				 i;

	hex[0] = '\0';
	for (i = 0; i < sizeof src / sizeof src[0]; i++) {
		if (facts_read_line(src[i][0], buf, sizeof buf) == 0) {
			facts_machine_hash(src[i][1], buf, hex);
			return;
		}
	}
}

int
facts_collect(struct proto_facts *f)
{
	struct utsname	 u;
	char		 buf[128];
	long		 pages, psize;
	unsigned long	 khz;
	double		 load[3];
	int		 i;

	snprintf(f->os, sizeof f->os, "linux");
	if (uname(&u) == 0) {
		facts_copy(f->arch, sizeof f->arch, util_arch(u.machine));
		facts_copy(f->kernel, sizeof f->kernel, u.release);
		facts_cpu_model(f, u.machine);
	}
	if (gethostname(buf, sizeof buf) == 0) {
		buf[sizeof buf - 1] = '\0';
		facts_copy(f->hostname, sizeof f->hostname, buf);
	}
	facts_machine(f->machine);
	f->cores = facts_cores();
	pages = sysconf(_SC_PHYS_PAGES);
	psize = sysconf(_SC_PAGESIZE);
	f->mem_kb = pages > 0 && psize > 0 ?
	    (uint64_t)pages * (uint64_t)psize / 1024 : 0;
	for (i = 0; i < 3; i++)
		f->load[i] = 0;
	if (getloadavg(load, 3) == 3) {
		for (i = 0; i < 3; i++)
			f->load[i] = load[i];
	}

	f->nextra = 0;
	if (facts_read_line(FACTS_SYS_CPU "/cpu0/cpufreq/scaling_governor",
	    buf, sizeof buf) == -1)
		snprintf(buf, sizeof buf, "unknown");
	facts_extra(f, "governor", buf);
	facts_extra(f, "boost", facts_boost());
	facts_extra(f, "smt", facts_onoff(FACTS_SYS_CPU "/smt/active", 0,
	    "unknown"));
	facts_extra(f, "aslr", facts_aslr());
	facts_thp(buf, sizeof buf);
	facts_extra(f, "thp", buf);
	facts_vm(buf, sizeof buf);
	facts_extra(f, "vm", buf);
	if (facts_read_line("/proc/sys/kernel/perf_event_paranoid", buf,
	    sizeof buf) == -1)
		snprintf(buf, sizeof buf, "unknown");
	facts_extra(f, "perf_event_paranoid", buf);
	if (facts_read_line(FACTS_SYS_CPU "/cpu0/cpufreq/cpuinfo_max_freq",
	    buf, sizeof buf) == 0 && (khz = strtoul(buf, NULL, 10)) > 0) {
		snprintf(buf, sizeof buf, "%lu", khz / 1000);
		facts_extra(f, "cpu_max_mhz", buf);
	}
	if (facts_read_line(FACTS_SYS_CPU "/isolated", buf, sizeof buf) == 0)
		facts_extra(f, "isolated_cpus", buf);
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
	long	n = sysconf(_SC_NPROCESSORS_ONLN);

	return (n < 1 ? 1 : n > UINT32_MAX ? UINT32_MAX : (uint32_t)n);
}

uint32_t
facts_cpus_usable(void)
{
	cpu_set_t	set;
	int		n;

	if (sched_getaffinity(0, sizeof set, &set) == -1 ||
	    (n = CPU_COUNT(&set)) < 1)
		return (facts_cores());
	return ((uint32_t)n);
}

uint64_t
facts_maxrss_kb(const struct rusage *ru)
{
	return (ru->ru_maxrss < 0 ? 0 : (uint64_t)ru->ru_maxrss);
}

/* Reads a CPU number at *pp; returns it, or -1 when there is none. */
static long
facts_cpu_num(const char **pp)
{
	const char	*p = *pp;
	long		 n = 0;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p < '0' || *p > '9')
		return (-1);
	while (*p >= '0' && *p <= '9') {
		if (n < INT_MAX / 10)
			n = n * 10 + (*p - '0');
		p++;
	}
	while (*p == ' ' || *p == '\t')
		p++;
	*pp = p;
	return (n);
}

/*
 * Parses a CPU list ("2,3", "0-3,8") into set. Returns 0, or -1 with a
 * reason in err.
 */
static int
facts_parse_cpus(const char *list, cpu_set_t *set, char *err, size_t errlen)
{
	const char	*p = list;
	long		 a, b, c;

	CPU_ZERO(set);
	for (;;) {
		if ((a = facts_cpu_num(&p)) == -1)
			goto bad;
		b = a;
		if (*p == '-') {
			p++;
			if ((b = facts_cpu_num(&p)) == -1 || b < a)
				goto bad;
		}
		if (b >= CPU_SETSIZE) {
			snprintf(err, errlen, "CPU %ld in \"%s\" is out of "
			    "range (0-%d)", b, list, CPU_SETSIZE - 1);
			return (-1);
		}
		for (c = a; c <= b; c++)
			CPU_SET((size_t)c, set);
		if (*p == '\0')
			return (0);
		if (*p != ',')
			goto bad;
		p++;
	}
bad:
	snprintf(err, errlen, "bad CPU list \"%s\" (expected a list like"
	    " \"2,3\" or \"0-3,8\")", list);
	return (-1);
}

int
facts_pin(const char *list, char *err, size_t errlen)
{
	cpu_set_t	set;
	int		r = -1;

	if (errlen > 0)
		err[0] = '\0';
	if (!facts_have_orig) {
		if (sched_getaffinity(0, sizeof facts_orig,
		    &facts_orig) == -1) {
			snprintf(err, errlen, "sched_getaffinity: %s",
			    strerror(errno));
			goto out;
		}
		facts_have_orig = 1;
	}
	if (list == NULL || *list == '\0') {
		if (sched_setaffinity(0, sizeof facts_orig,
		    &facts_orig) == -1) {
			snprintf(err, errlen, "cannot restore CPU affinity: %s",
			    strerror(errno));
			goto out;
		}
		r = 0;
		goto out;
	}
	if (facts_parse_cpus(list, &set, err, errlen) == -1)
		goto out;
	if (sched_setaffinity(0, sizeof set, &set) == -1) {
		if (errno == EINVAL)
			snprintf(err, errlen, "none of CPUs \"%s\" is online "
			    "and allowed for this process (%ld online)", list,
			    sysconf(_SC_NPROCESSORS_ONLN));
		else
			snprintf(err, errlen, "sched_setaffinity(%s): %s", list,
			    strerror(errno));
		goto out;
	}
	r = 0;
out:
	return (r);
}

/* The counters orch knows, by the names suites use. */
static const struct {
	const char	*name;
	uint32_t	 type;
	uint64_t	 config;
} facts_ctr_names[] = {
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "context-switches", PERF_TYPE_SOFTWARE,
	    PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
};

/*
 * Appends text to buf[len]; what does not fit is cut at a blank, never
 * inside a word, and "..." says so. Returns -1 once buf is full.
 */
static int
facts_append(char *buf, size_t len, const char *text)
{
	size_t	have = strlen(buf), n = strlen(text), cut;

	if (have + n < len) {
		memcpy(buf + have, text, n + 1);
		return (0);
	}
	if (len < have + 5)
		return (-1);
	cut = len - have - 4;		/* room for "..." and the NUL */
	while (cut > 0 && text[cut] != ' ')
		cut--;
	memcpy(buf + have, text, cut);
	memcpy(buf + have + cut, "...", 4);
	return (-1);
}

/*
 * Says which counters the kernel refused, one clause per reason ("the
 * kernel refused counters 'cycles', 'instructions' (perf_event_open: No
 * such file or directory; no such hardware counter here, e.g. in a VM)"),
 * into err[errlen], whole words only.
 */
static void
facts_ctr_refusals(const char **names, const int *errnos, size_t n, char *err,
    size_t errlen)
{
	char	clause[512];
	size_t	i, j, k;
	int	e, seen;

	for (i = 0; i < n; i++) {
		for (seen = 0, j = 0; j < i; j++)
			seen |= errnos[j] == errnos[i];
		if (seen)
			continue;
		e = errnos[i];
		for (k = 0, j = i; j < n; j++)
			k += errnos[j] == e;
		snprintf(clause, sizeof clause, "%sthe kernel refused "
		    "counter%s", err[0] != '\0' ? "; " : "", k > 1 ? "s" : "");
		for (k = 0, j = i; j < n; j++) {
			if (errnos[j] != e)
				continue;
			snprintf(clause + strlen(clause), sizeof clause -
			    strlen(clause), "%s '%s'", k++ ? "," : "",
			    names[j]);
		}
		snprintf(clause + strlen(clause), sizeof clause -
		    strlen(clause), " (perf_event_open: %s%s)", strerror(e),
		    e == EACCES || e == EPERM ? "; see "
		    "/proc/sys/kernel/perf_event_paranoid" : e == ENOENT ||
		    e == EOPNOTSUPP ? "; no such hardware counter here, e.g. "
		    "in a VM" : "");
		if (facts_append(err, errlen, clause) != 0)
			return;
	}
}

int
facts_counters_open(struct facts_counters *c, const char *list, char *err,
    size_t errlen)
{
	struct perf_event_attr	 attr;
	char			 buf[256], *tok, *save = NULL, *end;
	const char		*refused[sizeof facts_ctr_names /
				    sizeof facts_ctr_names[0] + 1];
	int			 rerrno[sizeof facts_ctr_names /
				    sizeof facts_ctr_names[0] + 1];
	size_t			 i, nrefused = 0;
	long			 fd;

	memset(c, 0, sizeof *c);
	if (errlen > 0)
		err[0] = '\0';
	if (list == NULL || *list == '\0')
		return (0);
	snprintf(buf, sizeof buf, "%s", list);
	for (tok = strtok_r(buf, ", ", &save); tok != NULL;
	    tok = strtok_r(NULL, ", ", &save)) {
		for (i = 0; i < sizeof facts_ctr_names /
		    sizeof facts_ctr_names[0]; i++) {
			if (strcmp(tok, facts_ctr_names[i].name) == 0)
				break;
		}
		if (i == sizeof facts_ctr_names / sizeof facts_ctr_names[0]) {
			snprintf(err, errlen, "unknown counter '%s'", tok);
			goto fail;
		}
		if (c->n == FACTS_COUNTERS_MAX) {
			snprintf(err, errlen, "more than %d counters",
			    FACTS_COUNTERS_MAX);
			goto fail;
		}
		memset(&attr, 0, sizeof attr);
		attr.size = sizeof attr;
		attr.type = facts_ctr_names[i].type;
		attr.config = facts_ctr_names[i].config;
		attr.disabled = 1;
		attr.inherit = 1;
		attr.enable_on_exec = 1;
		/* Software events happen in the kernel: count them there. */
		attr.exclude_kernel = facts_ctr_names[i].type ==
		    PERF_TYPE_HARDWARE;
		attr.exclude_hv = 1;
		fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1,
		    PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			/*
			 * Say why (below), and measure the counters that
			 * work.
			 */
			refused[nrefused] = tok;
			rerrno[nrefused++] = errno;
			continue;
		}
		c->fd[c->n] = (int)fd;
		snprintf(c->name[c->n], sizeof c->name[c->n], "%s", tok);
		c->n++;
	}
	(void)end;
	facts_ctr_refusals(refused, rerrno, nrefused, err, errlen);
	return (c->n);
fail:
	facts_counters_close(c, NULL);
	return (-1);
}

void
facts_counters_close(struct facts_counters *c, struct proto_sample *s)
{
	uint64_t	v;
	int		i;

	for (i = 0; i < c->n; i++) {
		if (s != NULL && s->nmetrics < PROTO_METRICS_MAX &&
		    read(c->fd[i], &v, sizeof v) == (ssize_t)sizeof v) {
			snprintf(s->metrics[s->nmetrics].key,
			    sizeof s->metrics[s->nmetrics].key, "%s",
			    c->name[i]);
			s->metrics[s->nmetrics++].value = (double)v;
		}
		close(c->fd[i]);
	}
	c->n = 0;
}

/* perf_event counters are inherited and read after the reap: nothing here. */
void
facts_counters_child(struct facts_counters *c, pid_t pid)
{
	(void)c;
	(void)pid;
}

/* Processes on Linux: a subreaper, /proc, the boot id. */
#define _GNU_SOURCE

#include <sys/prctl.h>
#include <sys/types.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/proc.h"
#include "proto/util.h"

int
proc_init(void)
{
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == -1)
		return (-1);
	return (1);
}

/*
 * Reads /proc/PID/stat into buf and returns the text after the command
 * name's closing parenthesis (state is its second byte), or NULL.
 */
static char *
proc_stat(pid_t pid, char *buf, size_t len)
{
	char	 path[64], *p;
	FILE	*f;
	size_t	 n;

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if ((f = fopen(path, "re")) == NULL)
		return (NULL);
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* The name may hold spaces and parentheses: the last ')' ends it. */
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ' || p[2] == '\0')
		return (NULL);
	return (p + 2);
}

int
proc_list(struct proc_entry **list, size_t *n)
{
	struct proc_entry	*l = NULL, *nl;
	struct dirent		*de;
	DIR			*d;
	char			 buf[1024], *p, *end;
	size_t			 cap = 0, k = 0;
	long			 pid, ppid;
	int			 saved;

	if ((d = opendir("/proc")) == NULL)
		return (-1);
	while ((de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = strtol(de->d_name, &end, 10);
		if (*end != '\0' || pid <= 0)
			continue;
		if ((p = proc_stat((pid_t)pid, buf, sizeof buf)) == NULL)
			continue;	/* gone meanwhile */
		/* "S PPID ...": state, then the parent. */
		ppid = strtol(p + 1, &end, 10);
		if (end == p + 1)
			continue;
		if (k == cap) {
			cap = cap ? cap * 2 : 256;
			if ((nl = reallocarray(l, cap, sizeof *l)) == NULL) {
				saved = errno;
				free(l);
				closedir(d);
				errno = saved;
				return (-1);
			}
			l = nl;
		}
		l[k].pid = (pid_t)pid;
		l[k].ppid = (pid_t)ppid;
		l[k].zombie = p[0] == 'Z' || p[0] == 'X';
		k++;
	}
	closedir(d);
	*list = l;
	*n = k;
	return (0);
}

/*
 * The boot's id into *id: read once, as no process outlives its boot.
 * Returns 0 or -1.
 */
static int
proc_boot_id(const char **id)
{
	static char	 boot[64];
	FILE		*f;

	if (boot[0] == '\0') {
		if ((f = fopen("/proc/sys/kernel/random/boot_id", "re")) ==
		    NULL)
			return (-1);
		if (fgets(boot, sizeof boot, f) == NULL) {
			boot[0] = '\0';
			fclose(f);
			return (-1);
		}
		fclose(f);
		boot[strcspn(boot, "\n")] = '\0';
	}
	*id = boot;
	return (0);
}

/* Formats the identity of a process started at start clock ticks. */
static int
proc_ident_fmt(unsigned long long start, char *buf, size_t len)
{
	const char	*boot;

	if (proc_boot_id(&boot) == -1)
		return (-1);
	if (snprintf(buf, len, "linux %s %llu", boot, start) >= (int)len)
		return (-1);
	return (0);
}

int
proc_ident(pid_t pid, char *buf, size_t len)
{
	char		 st[1024], *p, *end;
	int		 field;
	unsigned long long start;

	if ((p = proc_stat(pid, st, sizeof st)) == NULL)
		return (-1);
	/* p is field 3 (state); the start time is field 22. */
	for (field = 3; field < 22 && p != NULL; field++) {
		if ((p = strchr(p, ' ')) != NULL)
			p++;
	}
	if (p == NULL)
		return (-1);
	errno = 0;
	start = strtoull(p, &end, 10);
	if (end == p || errno != 0)
		return (-1);
	return (proc_ident_fmt(start, buf, len));
}

int64_t
proc_born_clock(void)
{
	return (util_clock_ns(CLOCK_BOOTTIME));
}

/*
 * The kernel stamps a new process with CLOCK_BOOTTIME as it creates it,
 * and /proc/PID/stat shows that stamp in whole clock ticks (field 22,
 * rounded down). A spawn that began and returned within one tick has that
 * tick as its child's start: no need to read /proc while the child runs.
 */
int
proc_ident_born(pid_t pid, const struct proc_born *born, char *buf,
    size_t len)
{
	static long	tick_ns;
	long		hz;

	if (tick_ns == 0) {
		hz = sysconf(_SC_CLK_TCK);
		tick_ns = hz > 0 && 1000000000L % hz == 0 ?
		    1000000000L / hz : -1;
	}
	if (tick_ns > 0 && born->lo > 0 && born->hi >= born->lo &&
	    born->lo / tick_ns == born->hi / tick_ns)
		return (proc_ident_fmt((unsigned long long)(born->lo /
		    tick_ns), buf, len));
	return (proc_ident(pid, buf, len));
}

int
proc_fd_path(int fd, char *buf, size_t len)
{
	/* Without /proc (or with it hidden), the caller falls back. */
	if (snprintf(buf, len, "/proc/%ld/fd/%d", (long)getpid(), fd) >=
	    (int)len || access(buf, X_OK) == -1)
		return (-1);
	return (0);
}

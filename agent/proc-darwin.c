/*
 * Processes on macOS: no subreaper, so a double-forked daemon whose middle
 * process has exited belongs to launchd and is out of reach; the process
 * list comes from sysctl KERN_PROC_ALL, start times from proc_pidinfo.
 */
#include <sys/types.h>
#include <sys/proc.h>		/* SZOMB */
#include <sys/sysctl.h>
#include <sys/time.h>

#include <errno.h>
#include <libproc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/proc.h"

int
proc_init(void)
{
	return (0);
}

int
proc_list(struct proc_entry **list, size_t *n)
{
	int			 mib[4] = { CTL_KERN, KERN_PROC,
	    KERN_PROC_ALL, 0 };
	struct kinfo_proc	*kp = NULL;
	struct proc_entry	*l;
	size_t			 len = 0, k, i;
	int			 tries, saved;

	for (tries = 0; tries < 8; tries++) {
		if (sysctl(mib, 4, NULL, &len, NULL, 0) == -1)
			return (-1);
		len += len / 8 + sizeof *kp * 16;	/* room for new ones */
		if ((kp = malloc(len)) == NULL)
			return (-1);
		if (sysctl(mib, 4, kp, &len, NULL, 0) == 0)
			break;
		saved = errno;
		free(kp);
		kp = NULL;
		if (saved != ENOMEM) {
			errno = saved;
			return (-1);
		}
	}
	if (kp == NULL) {
		errno = ENOMEM;
		return (-1);
	}
	k = len / sizeof *kp;
	if ((l = calloc(k + 1, sizeof *l)) == NULL) {
		free(kp);
		return (-1);
	}
	for (i = 0; i < k; i++) {
		l[i].pid = kp[i].kp_proc.p_pid;
		l[i].ppid = kp[i].kp_eproc.e_ppid;
		l[i].zombie = kp[i].kp_proc.p_stat == SZOMB;
	}
	free(kp);
	*list = l;
	*n = k;
	return (0);
}

int
proc_ident(pid_t pid, char *buf, size_t len)
{
	struct proc_bsdinfo	bi;
	struct timeval		boot;
	size_t			blen = sizeof boot;
	int			mib[2] = { CTL_KERN, KERN_BOOTTIME };

	if (proc_pidinfo(pid, PROC_PIDTBSDINFO, 0, &bi, sizeof bi) !=
	    (int)sizeof bi)
		return (-1);
	if (sysctl(mib, 2, &boot, &blen, NULL, 0) == -1)
		return (-1);
	if (snprintf(buf, len, "darwin %ld.%06ld %llu.%06llu",
	    (long)boot.tv_sec, (long)boot.tv_usec,
	    (unsigned long long)bi.pbi_start_tvsec,
	    (unsigned long long)bi.pbi_start_tvusec) >= (int)len)
		return (-1);
	return (0);
}

int64_t
proc_born_clock(void)
{
	return (0);
}

/* macOS tells a process's start in microseconds: asked each time. */
int
proc_ident_born(pid_t pid, const struct proc_born *born, char *buf,
    size_t len)
{
	(void)born;
	return (proc_ident(pid, buf, len));
}

int
proc_fd_path(int fd, char *buf, size_t len)
{
	(void)fd;
	(void)buf;
	(void)len;
	errno = ENOSYS;
	return (-1);
}

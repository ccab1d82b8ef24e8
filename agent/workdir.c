/*
 * The workdir: the directories the agent makes and trusts, and the host's
 * run lock, WORKDIR/run.lock, which flock() lets go of when its holder
 * dies, so a crashed run never leaves it stuck.
 */
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/workdir.h"
#include "proto/log.h"

int
workdir_mkdirs(const char *dir)
{
	char	tmp[PATH_MAX], *p;

	if (snprintf(tmp, sizeof tmp, "%s", dir) >= (int)sizeof tmp) {
		errno = ENAMETOOLONG;
		return (-1);
	}
	for (p = tmp + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0700) == -1 && errno != EEXIST)
			return (-1);
		*p = '/';
	}
	if (mkdir(tmp, 0700) == -1 && errno != EEXIST)
		return (-1);
	return (0);
}

/*
 * Others could plant programs, journals or a socket of their own in a
 * directory they may write to; what they may read of ours is taken away,
 * so that the agent's socket and files are its user's alone.
 */
int
workdir_check(const char *dir, char *why, size_t len)
{
	struct stat	st;

	if (lstat(dir, &st) == -1) {
		snprintf(why, len, "%s: %s", dir, strerror(errno));
		return (-1);
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, len, "%s is not a directory", dir);
		return (-1);
	}
	if (st.st_uid != geteuid()) {
		snprintf(why, len, "%s belongs to uid %lu, not to this user "
		    "(uid %lu): refusing to use it", dir,
		    (unsigned long)st.st_uid, (unsigned long)geteuid());
		return (-1);
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
		snprintf(why, len, "%s is writable by its group or others "
		    "(mode %04o): refusing to use it; chmod 700 it if its "
		    "content is yours", dir, (unsigned)(st.st_mode & 07777));
		return (-1);
	}
	if ((st.st_mode & 077) != 0 && chmod(dir, st.st_mode & 0700) == -1) {
		snprintf(why, len, "cannot make %s private: %s", dir,
		    strerror(errno));
		return (-1);
	}
	return (0);
}

/* Reads the first line of the lock file on fd, who holds it, into held. */
static void
workdir_lock_read(int fd, char *held, size_t len)
{
	struct timespec	 ts = { 0, 10 * 1000 * 1000 };
	ssize_t		 n;
	int		 i;

	/*
	 * The holder writes its line just after it takes the lock (truncate,
	 * then write): an empty file is a line on its way, so wait for it a
	 * little (at most 200 ms) before saying the lock has none.
	 */
	for (i = 0; i < 20; i++) {
		n = pread(fd, held, len - 1, 0);
		held[n > 0 ? n : 0] = '\0';
		held[strcspn(held, "\n")] = '\0';
		if (held[0] != '\0')
			break;
		nanosleep(&ts, NULL);
	}
}

/*
 * Returns 1 when held, the lock's first line, names an agent that serves
 * another host name than host; a line or a host without one (an older
 * agent) names none.
 */
static int
workdir_other_host(const char *held, const char *host)
{
	const char	*p;
	size_t		 n;

	if (host[0] == '\0' || (p = strstr(held, ", host ")) == NULL)
		return (0);
	p += strlen(", host ");
	n = strcspn(p, ",");
	return (n != strlen(host) || strncmp(p, host, n) != 0);
}

/*
 * When the lock on fd is held by an agent of run_id for our host (a
 * resume after the coordinator was lost), takes it over as how says: asks
 * that agent to hand the run over, ending the attempt it has in flight
 * first (SIGUSR1), or stops it (SIGTERM) — its journal goes on in us.
 * Returns 0 with the lock taken, 1 while an agent asked holds it still
 * (its pid in *pid), or -1.
 */
static int
workdir_takeover(int fd, const char *run_id, const char *host,
    const char *held, enum workdir_take how, long *pid)
{
	int	i;

	if (!workdir_holder_of(held, run_id, pid) || *pid <= 1 ||
	    *pid == (long)getpid() || workdir_other_host(held, host))
		return (-1);
	if (how == WORKDIR_TAKE_ASK) {
		log_info("asking agent pid %ld to hand run %s over once its "
		    "attempt in flight ends", *pid, run_id);
		if (kill((pid_t)*pid, SIGUSR1) == -1 && errno != ESRCH)
			return (-1);
	}
	if (how != WORKDIR_TAKE_STOP)
		return (flock(fd, LOCK_EX | LOCK_NB) == 0 ? 0 : 1);
	log_info("taking over run %s from agent pid %ld", run_id, *pid);
	if (kill((pid_t)*pid, SIGTERM) == -1 && errno != ESRCH)
		return (-1);
	for (i = 0; i < WORKDIR_LOCK_WAIT / 50; i++) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return (0);
		usleep(50 * 1000);
	}
	return (-1);
}

int
workdir_holder_of(const char *held, const char *run_id, long *pid)
{
	char	prefix[128];

	snprintf(prefix, sizeof prefix, "run %s, agent pid ", run_id);
	if (strncmp(held, prefix, strlen(prefix)) != 0)
		return (0);
	*pid = strtol(held + strlen(prefix), NULL, 10);
	return (1);
}

int
workdir_lock(const char *workdir, const char *run_id, const char *host,
    enum workdir_take how, char *why, size_t len)
{
	char		 path[PATH_MAX], info[512], when[32], held[512];
	const char	*from = getenv("SSH_CLIENT"), *user = getenv("USER");
	struct tm	 tm;
	time_t		 now = time(NULL);
	long		 pid;
	int		 fd, r;

	snprintf(path, sizeof path, "%s/run.lock", workdir);
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) == -1) {
		snprintf(why, len, "cannot open %s: %s", path, strerror(errno));
		return (-1);
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		workdir_lock_read(fd, held, sizeof held);
		if (workdir_holder_of(held, run_id, &pid) &&
		    workdir_other_host(held, host)) {
			snprintf(why, len, "%s: another host of this run holds "
			    "it (%s): host %s is the same machine and workdir; "
			    "refused", path, held, host);
			close(fd);
			return (-2);
		}
		r = workdir_takeover(fd, run_id, host, held, how, &pid);
		if (r == 1) {
			snprintf(why, len, "agent pid %ld of this run is "
			    "ending its attempt in flight, then hands the run "
			    "over", pid);
			close(fd);
			return (-3);
		}
		if (r != 0) {
			snprintf(why, len, "host busy: another orch run holds "
			    "%s (%s)", path, held[0] ? held : "no details");
			close(fd);
			return (-1);
		}
	}
	gmtime_r(&now, &tm);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(info, sizeof info, "run %s, agent pid %ld, host %s, user %s, "
	    "from %s, since %s\n", run_id, (long)getpid(), host[0] ? host :
	    "?", user ? user : "?", from ? from : "this machine", when);
	if (ftruncate(fd, 0) == -1 || pwrite(fd, info, strlen(info), 0) == -1)
		log_warn("%s", path);
	return (fd);
}

int
workdir_lock_holder(const char *workdir, char *held, size_t len)
{
	char	path[PATH_MAX];
	int	fd, r;

	held[0] = '\0';
	snprintf(path, sizeof path, "%s/run.lock", workdir);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (errno == ENOENT ? 0 : -1);
	if (flock(fd, LOCK_SH | LOCK_NB) == 0)
		r = 0;
	else {
		workdir_lock_read(fd, held, len);
		r = 1;
	}
	close(fd);
	return (r);
}

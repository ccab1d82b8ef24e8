/*
 * Running one benchmark program: posix_spawn in its own process group,
 * stdout parsed for metrics as it streams, a bounded stderr tail, a deadline
 * that kills the whole group and every descendant (agent/proc.h), and what
 * wait4() measures. The agent sleeps in poll() while the program runs, so
 * it takes no CPU from the benchmark.
 */
#include <sys/types.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "agent/exec.h"
#include "agent/facts.h"
#include "agent/metrics.h"
#include "agent/proc.h"
#include "proto/log.h"
#include "proto/util.h"

/*
 * posix_spawn_file_actions_addchdir_np: glibc >= 2.29, macOS >= 10.15.
 * Without it, a run with a cwd takes the fork branch (exec_spawn_fork).
 * Build with -DEXEC_NO_ADDCHDIR to exercise that branch anywhere.
 */
#if !defined(EXEC_NO_ADDCHDIR)
#if defined(__GLIBC__) && \
    (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 29))
#define EXEC_HAVE_ADDCHDIR 1
#elif defined(__APPLE__) && \
    defined(__ENVIRONMENT_MAC_OS_X_VERSION_MIN_REQUIRED__) && \
    __ENVIRONMENT_MAC_OS_X_VERSION_MIN_REQUIRED__ >= 101500
#define EXEC_HAVE_ADDCHDIR 1
#endif
#endif

/*
 * Our own descriptors are all close-on-exec; these also keep the agent's
 * inherited ones (sockets, the lifeline) away from the benchmark.
 */
#if defined(__GLIBC__) && \
    (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
#define EXEC_HAVE_ADDCLOSEFROM 1
#endif

/*
 * glibc declares its _np spawn actions only under _GNU_SOURCE, which only
 * facts-linux.c defines; the functions are in every glibc the checks above
 * admit, so they are declared here as glibc's spawn.h does.
 */
#if defined(__GLIBC__) && !defined(__USE_GNU)
#ifdef EXEC_HAVE_ADDCHDIR
extern int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *
    __restrict, const char *__restrict);
#endif
#ifdef EXEC_HAVE_ADDCLOSEFROM
extern int posix_spawn_file_actions_addclosefrom_np(
    posix_spawn_file_actions_t *, int);
#endif
#endif

#define EXEC_LINE_MAX	4096		/* longest stdout line parsed */
#define EXEC_READ_MAX	65536		/* bytes read per wake-up */
#define EXEC_DRAIN_NS	200000000LL	/* output drained after the exit */
#define EXEC_TAIL_LEN	(PROTO_TAIL_MAX - 1)

/* The SIGCHLD self-pipe: the handler writes, the event loop reads. */
static int			 exec_sigr = -1;
static volatile sig_atomic_t	 exec_sigw = -1;

/* Output of one run being collected. */
struct exec_io {
	const char	*checksum_key;
	char *const	*mkeys;			/* req's metric keys */
	size_t		 nmkeys;
	struct proto_sample *out;
	int		 outfd;			/* stdout pipe, -1 once
						   at EOF */
	int		 errfd;			/* stderr pipe, -1 once
						   at EOF */
	char		 line[EXEC_LINE_MAX];	/* the stdout line being read */
	size_t		 linelen;
	int		 skipping;		/* inside an over-long line */
	char		 ring[EXEC_TAIL_LEN];	/* last bytes of stderr */
	size_t		 ringpos;		/* where the next byte goes */
	size_t		 ringlen;		/* bytes held,
						   <= EXEC_TAIL_LEN */
	uint64_t	 errtotal;		/* stderr bytes seen in all */
	char		 merr[PROTO_TAIL_MAX];	/* the first bad metric line */
	EVP_MD_CTX	*sha;			/* stdout's SHA-256, or NULL */
	int		 sha_failed;		/* the digest failed:
						   no checksum */
	char		*first;			/* req->firstline, or NULL */
	size_t		 firstcap;
	size_t		 firstlen;
	int		 firstdone;		/* its newline was seen */
};

/* Parses one stdout line; keeps the first bad metric line's reason. */
static void
exec_metrics_line(struct exec_io *io, struct proto_sample *out)
{
	char	err[PROTO_TAIL_MAX];

	if (metrics_line(out, io->line, io->linelen, io->checksum_key,
	    io->mkeys, io->nmkeys, err, sizeof err) == -1 &&
	    io->merr[0] == '\0')
		memcpy(io->merr, err, sizeof io->merr);
}

/* Notes a child state change on the self-pipe. */
static void
exec_sigchld(int sig)
{
	int	saved = errno, fd = exec_sigw;
	char	c = 0;

	(void)sig;
	/* Nothing to do when it fails: a full pipe wakes the loop anyway. */
	if (fd != -1 && write(fd, &c, 1) == -1)
		c = 1;
	errno = saved;
}

/* Returns the milliseconds from now until end for poll(), rounded up. */
static int
exec_ms_until(int64_t end, int64_t now)
{
	int64_t	ms;

	if (end <= now)
		return (0);
	ms = (end - now + 999999) / 1000000;
	return (ms > INT_MAX ? INT_MAX : (int)ms);
}

/*
 * Moves fd above the standard descriptors when needed (so that the child's
 * dup2 onto 1 and 2 cannot clobber it) and makes it close-on-exec, and
 * non-blocking when asked. Returns the fd, or -1 (fd closed) with errno set.
 */
static int
exec_fdprep(int fd, int nonblock)
{
	int	nfd, fl, saved;

	if (fd < 3) {
		if ((nfd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) == -1)
			goto fail;
		close(fd);
		fd = nfd;
	} else if (fcntl(fd, F_SETFD, FD_CLOEXEC) == -1)
		goto fail;
	if (nonblock) {
		if ((fl = fcntl(fd, F_GETFL)) == -1 ||
		    fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1)
			goto fail;
	}
	return (fd);
fail:
	saved = errno;
	close(fd);
	errno = saved;
	return (-1);
}

/* Makes a pipe whose ends suit exec_fdprep; returns 0 or -1 with errno. */
static int
exec_pipe(int p[2], int nonblock_read, int nonblock_write)
{
	int	saved;

	p[0] = p[1] = -1;
	if (pipe(p) == -1) {
		p[0] = p[1] = -1;
		return (-1);
	}
	if ((p[0] = exec_fdprep(p[0], nonblock_read)) == -1) {
		saved = errno;
		close(p[1]);
		p[1] = -1;
		errno = saved;
		return (-1);
	}
	if ((p[1] = exec_fdprep(p[1], nonblock_write)) == -1) {
		saved = errno;
		close(p[0]);
		p[0] = -1;
		errno = saved;
		return (-1);
	}
	return (0);
}

/* Closes *fd when open and marks it closed. */
static void
exec_close(int *fd)
{
	if (*fd != -1) {
		close(*fd);
		*fd = -1;
	}
}

int
exec_init(void)
{
	struct sigaction	sa;
	int			p[2] = { -1, -1 }, r = -1, saved;

	if (exec_sigr != -1)
		return (0);
	/*
	 * Orphans of a benchmark (a daemon's double fork) become ours, so the
	 * sweep at the end of each run finds them. Without it, the sweep
	 * still finds what is attached to us.
	 */
	if (proc_init() == -1)
		log_warn("cannot become a subreaper: benchmarks that "
		    "double-fork may escape");
	if (exec_pipe(p, 1, 1) == -1)
		goto out;
	exec_sigr = p[0];
	exec_sigw = p[1];

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = exec_sigchld;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	if (sigaction(SIGCHLD, &sa, NULL) == -1)
		goto out;
	/* A benchmark that exits early must not kill us through a pipe. */
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_IGN;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGPIPE, &sa, NULL) == -1)
		goto out;
	r = 0;
out:
	if (r == -1) {
		saved = errno;
		exec_sigw = -1;
		exec_sigr = -1;
		exec_close(&p[0]);
		exec_close(&p[1]);
		errno = saved;
	}
	return (r);
}

/* Empties the self-pipe. */
static void
exec_sigdrain(void)
{
	char	buf[64];

	while (read(exec_sigr, buf, sizeof buf) > 0)
		;
}

/* Writes a formatted reason into out->err_tail. */
static void __attribute__((format(printf, 2, 3)))
exec_reason(struct proto_sample *out, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(out->err_tail, sizeof out->err_tail, fmt, ap);
	va_end(ap);
}

/* Kills pid's whole process group; it being gone already is fine. */
static void
exec_killgroup(pid_t pid)
{
	if (kill(-pid, SIGKILL) == -1 && errno != ESRCH)
		log_warn("kill process group %ld", (long)pid);
}

/*
 * Kills pid's process group and then every other descendant of ours:
 * those that left the group (setsid, setpgid) are found by ancestry.
 * keep is pid while it is unreaped (killed, left for exec_reap), else 0.
 */
static void
exec_killall(pid_t pid, pid_t keep)
{
	exec_killgroup(pid);
	proc_sweep(keep);
}

#ifndef EXEC_HAVE_ADDCHDIR
/*
 * The fork branch, for C libraries whose posix_spawn cannot chdir: the same
 * set-up by hand, only async-signal-safe calls in the child, and an exec
 * failure reported back through a close-on-exec pipe. Returns the pid, or
 * -1 with errno set to the child's failure.
 */
static pid_t
exec_spawn_fork(const struct exec_req *req, int outw, int errw, int64_t *t0,
    struct proc_born *born)
{
	struct sigaction sa;
	sigset_t	 none;
	pid_t		 pid = -1;
	int		 rep[2] = { -1, -1 }, e = 0, saved = 0, fd, sig;
	ssize_t		 n;

	if (exec_pipe(rep, 0, 0) == -1)
		return (-1);
	sigemptyset(&none);
	born->lo = proc_born_clock();
	*t0 = util_clock_ns(CLOCK_MONOTONIC);
	if ((pid = fork()) == 0) {
		setpgid(0, 0);
		for (sig = 1; sig < NSIG; sig++) {
			if (sigaction(sig, NULL, &sa) == 0 &&
			    sa.sa_handler != SIG_DFL) {
				sa.sa_handler = SIG_DFL;
				sa.sa_flags = 0;
				sigaction(sig, &sa, NULL);
			}
		}
		sigprocmask(SIG_SETMASK, &none, NULL);
		if ((fd = open("/dev/null", O_RDONLY)) == -1 ||
		    (fd != 0 && dup2(fd, 0) == -1))
			e = errno;
		else if (fd > 2)
			close(fd);
		if (e == 0 && (dup2(outw, 1) == -1 || dup2(errw, 2) == -1 ||
		    chdir(req->cwd) == -1))
			e = errno;
		if (e == 0) {
			execve(req->path != NULL ? req->path : req->argv[0],
			    req->argv, req->envp);
			e = errno;
		}
		n = write(rep[1], &e, sizeof e);
		(void)n;
		_exit(127);
	}
	born->hi = proc_born_clock();
	if (pid == -1)
		saved = errno;
	exec_close(&rep[1]);
	if (pid != -1) {
		/* Also here, so the group exists before we may signal it. */
		setpgid(pid, pid);
		do
			n = read(rep[0], &e, sizeof e);
		while (n == -1 && errno == EINTR);
		if (n == (ssize_t)sizeof e) {
			while (waitpid(pid, NULL, 0) == -1 && errno == EINTR)
				;
			pid = -1;
			saved = e;
		}
	}
	exec_close(&rep[0]);
	errno = saved;
	return (pid);
}
#endif

/*
 * Starts req's program leading its own process group, stdin from /dev/null,
 * stdout and stderr on outw and errw, default signal dispositions and an
 * empty signal mask. Sets *t0 just before the spawn, and *born around it.
 * Returns the pid, or -1
 * with errno set.
 */
static pid_t
exec_spawn(const struct exec_req *req, int outw, int errw, int64_t *t0,
    struct proc_born *born)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t	 attr;
	sigset_t		 none, all;
	pid_t			 pid = -1;
	int			 e, fa_ok = 0, attr_ok = 0;
	short			 flags;

#ifndef EXEC_HAVE_ADDCHDIR
	if (req->cwd != NULL)
		return (exec_spawn_fork(req, outw, errw, t0, born));
#endif
	if ((e = posix_spawn_file_actions_init(&fa)) != 0)
		goto out;
	fa_ok = 1;
	if ((e = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null",
	    O_RDONLY, 0)) != 0 ||
	    (e = posix_spawn_file_actions_adddup2(&fa, outw, 1)) != 0 ||
	    (e = posix_spawn_file_actions_adddup2(&fa, errw, 2)) != 0)
		goto out;
#ifdef EXEC_HAVE_ADDCLOSEFROM
	if ((e = posix_spawn_file_actions_addclosefrom_np(&fa, 3)) != 0)
		goto out;
#endif
#ifdef EXEC_HAVE_ADDCHDIR
	if (req->cwd != NULL &&
	    (e = posix_spawn_file_actions_addchdir_np(&fa, req->cwd)) != 0)
		goto out;
#endif

	if ((e = posix_spawnattr_init(&attr)) != 0)
		goto out;
	attr_ok = 1;
	flags = (short)(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
	    POSIX_SPAWN_SETSIGDEF);
#ifdef POSIX_SPAWN_CLOEXEC_DEFAULT
	flags = (short)(flags | POSIX_SPAWN_CLOEXEC_DEFAULT);
#endif
	sigemptyset(&none);
	sigfillset(&all);
	if ((e = posix_spawnattr_setflags(&attr, flags)) != 0 ||
	    (e = posix_spawnattr_setpgroup(&attr, 0)) != 0 ||
	    (e = posix_spawnattr_setsigmask(&attr, &none)) != 0 ||
	    (e = posix_spawnattr_setsigdefault(&attr, &all)) != 0)
		goto out;

	born->lo = proc_born_clock();
	*t0 = util_clock_ns(CLOCK_MONOTONIC);
	if ((e = posix_spawn(&pid, req->path != NULL ? req->path :
	    req->argv[0], &fa, &attr, req->argv, req->envp)) != 0)
		pid = -1;
	born->hi = proc_born_clock();
out:
	if (attr_ok)
		posix_spawnattr_destroy(&attr);
	if (fa_ok)
		posix_spawn_file_actions_destroy(&fa);
	if (pid == -1)
		errno = e;
	return (pid);
}

/*
 * Explains in out->err_tail, after prefix, why req's program cannot start:
 * its directory, or e (the spawn's errno; 0: check the program's path now).
 * Returns 1 when it wrote a reason, 0 when it found nothing wrong.
 */
static int
exec_why(const struct exec_req *req, struct proto_sample *out,
    const char *prefix, int e)
{
	struct stat	 st;
	char		 path[1024];
	const char	*prog = req->path != NULL ? req->path : req->argv[0];
	int		 ce;

	if (req->cwd != NULL) {
		ce = stat(req->cwd, &st) == -1 ? errno :
		    !S_ISDIR(st.st_mode) ? ENOTDIR : 0;
		if (ce != 0) {
			exec_reason(out, "%scannot change to directory %s: %s",
			    prefix, req->cwd, strerror(ce));
			return (1);
		}
	}
	if (e == 0) {
		if (prog[0] != '/' && req->cwd != NULL) {
			snprintf(path, sizeof path, "%s/%s", req->cwd, prog);
			prog = path;
		}
		if (access(prog, X_OK) == 0)
			return (0);
		e = errno;
	}
	exec_reason(out, "%scannot execute %s: %s", prefix, req->argv[0],
	    strerror(e));
	return (1);
}

/*
 * Fills out->err_tail with words for a failure that left stderr empty.
 * Exit code 127 usually means the exec failed (and under valgrind glibc's
 * posix_spawn cannot tell us), so the directory and path are checked then.
 */
static void
exec_status_reason(const struct exec_req *req, struct proto_sample *out)
{
	const char	*name;

	switch (out->status) {
	case PROTO_ST_TIMEOUT:
		exec_reason(out, "timed out after %lu ms",
		    (unsigned long)req->timeout_ms);
		break;
	case PROTO_ST_SIGNAL:
		name = strsignal(out->signal);
		exec_reason(out, "killed by signal %d (%s)", (int)out->signal,
		    name != NULL ? name : "unknown");
		break;
	case PROTO_ST_FAILED:
		if (out->exit_code == 127 &&
		    exec_why(req, out, "exit code 127; ", 0))
			break;
		exec_reason(out, "exit code %d", (int)out->exit_code);
		break;
	}
}

/*
 * Ends the stderr tail of a run that timed out with a line stating the
 * limit: its last line, the one a report shows. The tail's oldest bytes
 * make room.
 */
static void
exec_timeout_line(const struct exec_req *req, struct proto_sample *out)
{
	char	line[64];
	size_t	len = strlen(out->err_tail), n, room;

	snprintf(line, sizeof line, "%stimed out after %lu ms",
	    len > 0 && out->err_tail[len - 1] != '\n' ? "\n" : "",
	    (unsigned long)req->timeout_ms);
	n = strlen(line);
	room = sizeof out->err_tail - 1;
	if (len + n > room) {
		memmove(out->err_tail, out->err_tail + (len + n - room),
		    room - n);
		len = room - n;
	}
	memcpy(out->err_tail + len, line, n + 1);
}

/* Appends n bytes of stderr to the tail ring. */
static void
exec_ring_put(struct exec_io *io, const char *p, size_t n)
{
	size_t	cap = sizeof io->ring, first;

	io->errtotal += n;
	if (n >= cap) {
		memcpy(io->ring, p + n - cap, cap);
		io->ringpos = 0;
		io->ringlen = cap;
		return;
	}
	first = cap - io->ringpos < n ? cap - io->ringpos : n;
	memcpy(io->ring + io->ringpos, p, first);
	memcpy(io->ring, p + first, n - first);
	io->ringpos = (io->ringpos + n) % cap;
	io->ringlen = io->ringlen + n > cap ? cap : io->ringlen + n;
}

/*
 * Copies the ring into dst (EXEC_TAIL_LEN + 1 bytes) as a string: NULs
 * become '?', and a tail cut from a longer output starts at a whole UTF-8
 * character.
 */
static void
exec_ring_get(const struct exec_io *io, char *dst)
{
	size_t	cap = sizeof io->ring, start, i, skip = 0;

	start = io->ringlen < cap ? 0 : io->ringpos;
	for (i = 0; i < io->ringlen; i++)
		dst[i] = io->ring[(start + i) % cap];
	if (io->errtotal > io->ringlen) {
		while (skip < io->ringlen && skip < 3 &&
		    ((unsigned char)dst[skip] & 0xc0) == 0x80)
			skip++;
		memmove(dst, dst + skip, io->ringlen - skip);
	}
	for (i = 0; i < io->ringlen - skip; i++) {
		if (dst[i] == '\0')
			dst[i] = '?';
	}
	dst[io->ringlen - skip] = '\0';
}

/*
 * Keeps what the caller wants of stdout besides metrics: its hash (every
 * byte, streamed: nothing is kept), and its first line, cut to fit.
 */
static void
exec_out_extra(struct exec_io *io, const char *p, size_t n)
{
	const char	*nl;
	size_t		 take;

	if (io->sha != NULL && !io->sha_failed &&
	    EVP_DigestUpdate(io->sha, p, n) != 1)
		io->sha_failed = 1;
	if (io->first == NULL || io->firstdone)
		return;
	nl = memchr(p, '\n', n);
	take = nl != NULL ? (size_t)(nl - p) : n;
	if (take > io->firstcap - 1 - io->firstlen)
		take = io->firstcap - 1 - io->firstlen;
	memcpy(io->first + io->firstlen, p, take);
	io->firstlen += take;
	io->first[io->firstlen] = '\0';
	if (nl != NULL || io->firstlen == io->firstcap - 1)
		io->firstdone = 1;
}

/*
 * Feeds stdout bytes to the line parser; lines too long are skipped, so
 * binary output (NULs, no newline for megabytes) costs no more memory than
 * one line buffer.
 */
static void
exec_out_feed(struct exec_io *io, const char *p, size_t n)
{
	const char	*nl;
	size_t		 chunk;

	exec_out_extra(io, p, n);
	while (n > 0) {
		nl = memchr(p, '\n', n);
		chunk = nl != NULL ? (size_t)(nl - p) : n;
		if (!io->skipping) {
			if (io->linelen + chunk > sizeof io->line) {
				io->skipping = 1;
				io->linelen = 0;
			} else {
				memcpy(io->line + io->linelen, p, chunk);
				io->linelen += chunk;
			}
		}
		if (nl == NULL)
			break;
		if (!io->skipping)
			exec_metrics_line(io, io->out);
		io->skipping = 0;
		io->linelen = 0;
		p += chunk + 1;
		n -= chunk + 1;
	}
}

/* Reads what one pipe has; closes it at EOF or on a read error. */
static void
exec_read(struct exec_io *io, int *fd, int is_out)
{
	char	buf[EXEC_READ_MAX];
	ssize_t	n;

	n = read(*fd, buf, sizeof buf);
	if (n > 0) {
		if (is_out)
			exec_out_feed(io, buf, (size_t)n);
		else
			exec_ring_put(io, buf, (size_t)n);
		return;
	}
	if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK ||
	    errno == EINTR))
		return;
	if (n == -1)
		log_warn("read from benchmark %s",
		    is_out ? "stdout" : "stderr");
	if (is_out) {
		/* The last line, if it had no newline. */
		if (!io->skipping && io->linelen > 0)
			exec_metrics_line(io, io->out);
		io->linelen = 0;
	}
	exec_close(fd);
}

/*
 * Returns 1 when the lifeline reported EOF or a hang-up, else 0. Data that
 * arrives on it is read and thrown away, so that poll() does not spin.
 */
static int
exec_lifeline_closed(int fd, short revents)
{
	char	buf[256];
	ssize_t	n;

	if (revents & (POLLERR | POLLNVAL))
		return (1);
	if (revents & POLLIN) {
		n = read(fd, buf, sizeof buf);
		if (n > 0)
			return (0);
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK ||
		    errno == EINTR))
			return (0);
		return (1);
	}
	return ((revents & POLLHUP) != 0);
}

/*
 * Reaps pid if it has exited, setting *t1 right after wait4 returns it.
 * Returns 1 when reaped, 0 when still running, -1 when it is not our child
 * any more (someone else reaped it).
 */
static int
exec_reap(pid_t pid, int *status, struct rusage *ru, int64_t *t1)
{
	pid_t	w;

	for (;;) {
		w = wait4(pid, status, WNOHANG, ru);
		if (w == pid) {
			*t1 = util_clock_ns(CLOCK_MONOTONIC);
			return (1);
		}
		if (w == 0)
			return (0);
		if (errno != EINTR)
			return (-1);
	}
}

/* Returns a struct timeval as nanoseconds. */
static uint64_t
exec_tv_ns(const struct timeval *tv)
{
	return ((uint64_t)tv->tv_sec * 1000000000ULL +
	    (uint64_t)tv->tv_usec * 1000ULL);
}

/* Resets the measurement fields of out. */
static void
exec_reset(struct proto_sample *out)
{
	out->status = PROTO_ST_FAILED;
	out->exit_code = 0;
	out->signal = 0;
	out->wall_ns = out->user_ns = out->sys_ns = 0;
	out->maxrss_kb = out->nvcsw = out->nivcsw = 0;
	out->start_ns = util_clock_ns(CLOCK_REALTIME);
	out->nmetrics = 0;
	out->has_checksum = 0;
	out->checksum[0] = '\0';
	out->err_tail[0] = '\0';
}

/* A benchmark being run: its process, its output and its clocks. */
struct exec_child {
	struct exec_io		 io;
	struct facts_counters	 ctr;
	struct rusage		 ru;
	int			 outp[2];	/* its stdout, until io
						   has it */
	int			 errp[2];	/* its stderr, likewise */
	pid_t			 pid;		/* -1 until started */
	int			 wstatus;
	int			 reaped;	/* waited for */
	int			 timed_out;	/* killed at its deadline */
	int			 lost;		/* reaped elsewhere */
	int64_t			 t0;		/* CLOCK_MONOTONIC ns at
						   its start */
	int64_t			 t1;		/* and at its exit */
	int64_t			 deadline;	/* t0 + timeout, or 0 */
	int64_t			 drain_end;	/* read its output until then */
};

/*
 * Sets up the pipes, the CPU pinning and the counters, then starts the
 * benchmark. Returns 0, or -1 with the reason in out.
 */
static int
exec_start(const struct exec_req *req, struct exec_child *c,
    struct proto_sample *out)
{
	struct proc_born born = { 0, 0 };
	char		 err[256];
	int		 pinned = 0, e;

	if (exec_init() == -1) {
		exec_reason(out, "cannot set up SIGCHLD handling: %s",
		    strerror(errno));
		return (-1);
	}
	if (exec_pipe(c->outp, 1, 0) == -1 || exec_pipe(c->errp, 1, 0) == -1) {
		exec_reason(out, "cannot create pipes: %s", strerror(errno));
		return (-1);
	}
	if (req->pin != NULL && *req->pin != '\0') {
		if (facts_pin(req->pin, err, sizeof err) == -1) {
			exec_reason(out, "cannot pin to CPUs %s: %s", req->pin,
			    err);
			return (-1);
		}
		pinned = 1;
	}
	if (req->counters != NULL && *req->counters != '\0' &&
	    facts_counters_open(&c->ctr, req->counters, err,
	    sizeof err) == -1) {
		exec_reason(out, "%s", err);
		return (-1);
	}

	exec_sigdrain();	/* wake-ups left from earlier runs */
	out->start_ns = util_clock_ns(CLOCK_REALTIME);
	c->pid = exec_spawn(req, c->outp[1], c->errp[1], &c->t0, &born);
	e = errno;
	if (c->pid != -1 && req->spawned != NULL)
		req->spawned((long)c->pid, &born, req->spawned_arg);
	/* The child has its own copy of the affinity now. */
	if (pinned && facts_pin(NULL, err, sizeof err) == -1)
		log_warnx("cannot restore CPU affinity: %s", err);
	/*
	 * The pipes' write ends stay open here until the child is reaped: its
	 * exit then wakes us once (SIGCHLD), not first for each pipe's hangup
	 * while it is still exiting, taking the CPU it exits on.
	 */
	if (c->pid == -1) {
		exec_why(req, out, "", e);
		return (-1);
	}
	c->io.outfd = c->outp[0];
	c->io.errfd = c->errp[0];
	c->outp[0] = c->errp[0] = -1;
	if (req->timeout_ms > 0)
		c->deadline = c->t0 + (int64_t)req->timeout_ms * 1000000LL;
	return (0);
}

/*
 * Returns how long to poll from now: until the end of draining once the
 * benchmark is reaped, else until its deadline, else -1 (no limit). Kills
 * it at its deadline. Returns -2 when there is nothing left to wait for.
 */
static int
exec_poll_timeout(struct exec_child *c, int64_t now)
{
	if (c->reaped) {
		if ((c->io.outfd == -1 && c->io.errfd == -1) ||
		    now >= c->drain_end)
			return (-2);
		return (exec_ms_until(c->drain_end, now));
	}
	if (c->deadline != 0 && !c->timed_out) {
		if (now >= c->deadline) {
			exec_killall(c->pid, c->pid);
			c->timed_out = 1;
			return (-1);
		}
		return (exec_ms_until(c->deadline, now));
	}
	return (-1);
}

/* Reaps the benchmark when SIGCHLD says it may have exited. */
static void
exec_on_sigchld(struct exec_child *c)
{
	int	w;

	exec_sigdrain();
	facts_counters_child(&c->ctr, c->pid);
	w = exec_reap(c->pid, &c->wstatus, &c->ru, &c->t1);
	if (w == 0)
		return;
	if (w == -1) {
		c->lost = 1;
		c->t1 = util_clock_ns(CLOCK_MONOTONIC);
	}
	c->reaped = 1;
	/* From now on, the pipes' end is the end of what is left to drain. */
	exec_close(&c->outp[1]);
	exec_close(&c->errp[1]);
	/*
	 * Grandchildren left in its group die too, and so do those that left
	 * it. The group id cannot be reused while any of them lives, and pids
	 * are not recycled at once.
	 */
	exec_killall(c->pid, 0);
	c->drain_end = c->t1 + EXEC_DRAIN_NS;
}

/*
 * Reads the benchmark's output until it has exited and its output is
 * drained, killing it at its deadline. Returns 0, 1 when the lifeline
 * closed, or -1 with the reason in out.
 */
static int
exec_watch(const struct exec_req *req, struct exec_child *c,
    struct proto_sample *out)
{
	struct pollfd	pfd[4];
	int		isig, iout, ierr, ilife, tmo, e;
	nfds_t		n;

	for (;;) {
		tmo = exec_poll_timeout(c, util_clock_ns(CLOCK_MONOTONIC));
		if (tmo == -2)
			return (0);
		n = 0;
		isig = iout = ierr = ilife = -1;
		if (!c->reaped) {
			pfd[n].fd = exec_sigr;
			pfd[n].events = POLLIN;
			isig = (int)n++;
			if (req->lifeline_fd >= 0) {
				pfd[n].fd = req->lifeline_fd;
				pfd[n].events = POLLIN;
				ilife = (int)n++;
			}
		}
		if (c->io.outfd != -1) {
			pfd[n].fd = c->io.outfd;
			pfd[n].events = POLLIN;
			iout = (int)n++;
		}
		if (c->io.errfd != -1) {
			pfd[n].fd = c->io.errfd;
			pfd[n].events = POLLIN;
			ierr = (int)n++;
		}
		if (poll(pfd, n, tmo) == -1) {
			if (errno == EINTR)
				continue;
			e = errno;
			log_warn("poll");
			exec_reason(out, "agent error: poll: %s", strerror(e));
			return (-1);
		}
		if (ilife != -1 && pfd[ilife].revents != 0 &&
		    exec_lifeline_closed(req->lifeline_fd,
		    pfd[ilife].revents)) {
			log_debug("lifeline closed: killing process group %ld",
			    (long)c->pid);
			return (1);
		}
		/* First the exit, so that wall time stops as soon as can be. */
		if (isig != -1 && pfd[isig].revents != 0)
			exec_on_sigchld(c);
		if (iout != -1 && pfd[iout].revents != 0)
			exec_read(&c->io, &c->io.outfd, 1);
		if (ierr != -1 && pfd[ierr].revents != 0)
			exec_read(&c->io, &c->io.errfd, 0);
	}
}

/*
 * Makes stdout's hash the checksum, as "sha256:HEX"; only of the whole of
 * it (read to its end), else there is none and the run cannot match.
 */
static void
exec_out_sum(struct exec_io *io, struct proto_sample *out)
{
	static const char	 digits[] = "0123456789abcdef";
	unsigned char		 md[EVP_MAX_MD_SIZE];
	unsigned int		 mdlen = 0, i;
	char			*o;

	if (io->sha == NULL)
		return;
	if (io->outfd != -1 || io->sha_failed ||
	    EVP_DigestFinal_ex(io->sha, md, &mdlen) != 1 || mdlen != 32) {
		out->has_checksum = 0;
		out->checksum[0] = '\0';
		return;
	}
	o = out->checksum + snprintf(out->checksum, sizeof out->checksum,
	    "sha256:");
	for (i = 0; i < mdlen; i++) {
		*o++ = digits[md[i] >> 4];
		*o++ = digits[md[i] & 15];
	}
	*o = '\0';
	out->has_checksum = 1;
}

/* Fills out with what the benchmark, exited and drained, measured. */
static void
exec_result(const struct exec_req *req, struct exec_child *c,
    struct proto_sample *out)
{
	struct exec_io	*io = &c->io;

	/* Whatever is still in the line buffer is a last line without \n. */
	if (io->outfd != -1 && !io->skipping && io->linelen > 0)
		exec_metrics_line(io, out);
	exec_out_sum(io, out);

	out->wall_ns = (uint64_t)(c->t1 - c->t0);
	out->user_ns = exec_tv_ns(&c->ru.ru_utime);
	out->sys_ns = exec_tv_ns(&c->ru.ru_stime);
	out->maxrss_kb = facts_maxrss_kb(&c->ru);
	out->nvcsw = c->ru.ru_nvcsw < 0 ? 0 : (uint64_t)c->ru.ru_nvcsw;
	out->nivcsw = c->ru.ru_nivcsw < 0 ? 0 : (uint64_t)c->ru.ru_nivcsw;
	facts_counters_close(&c->ctr, c->lost ? NULL : out);
	if (c->lost) {
		out->status = PROTO_ST_FAILED;
		exec_reason(out, "agent error: the child was reaped elsewhere"
		    " (is SIGCHLD ignored?)");
		return;
	}
	if (WIFEXITED(c->wstatus)) {
		out->exit_code = WEXITSTATUS(c->wstatus);
		out->status = out->exit_code == 0 ? PROTO_ST_OK :
		    PROTO_ST_FAILED;
	} else if (WIFSIGNALED(c->wstatus)) {
		out->signal = WTERMSIG(c->wstatus);
		if (c->timed_out && out->signal == SIGKILL)
			out->status = PROTO_ST_TIMEOUT;
		else
			out->status = PROTO_ST_SIGNAL;
	}
	exec_ring_get(io, out->err_tail);
	if (out->status == PROTO_ST_OK && io->merr[0] != '\0') {
		/* A value lost or doubled would skew the result unseen. */
		out->status = PROTO_ST_FAILED;
		exec_reason(out, "%s", io->merr);
		return;
	}
	if (out->err_tail[0] == '\0' && out->status != PROTO_ST_OK)
		exec_status_reason(req, out);
	else if (out->status == PROTO_ST_TIMEOUT)
		exec_timeout_line(req, out);
}

/*
 * Lets go of what running the benchmark took; kills and reaps it, and
 * whatever it started, when it still runs.
 */
static void
exec_cleanup(struct exec_child *c)
{
	facts_counters_close(&c->ctr, NULL);
	if (c->io.sha != NULL)
		EVP_MD_CTX_free(c->io.sha);
	c->io.sha = NULL;
	if (c->pid != -1 && !c->reaped) {
		exec_killgroup(c->pid);
		while (wait4(c->pid, &c->wstatus, 0, &c->ru) == -1 &&
		    errno == EINTR)
			;
		proc_sweep(0);
	}
	exec_close(&c->io.outfd);
	exec_close(&c->io.errfd);
	exec_close(&c->outp[0]);
	exec_close(&c->outp[1]);
	exec_close(&c->errp[0]);
	exec_close(&c->errp[1]);
}

int
exec_run(const struct exec_req *req, struct proto_sample *out)
{
	struct exec_child	c;
	int			r = 0;

	exec_reset(out);
	memset(&c, 0, sizeof c);
	c.io.out = out;
	c.io.checksum_key = req->checksum_key;
	c.io.mkeys = req->mkeys;
	c.io.nmkeys = req->nmkeys;
	if (req->checksum_key != NULL &&
	    strcmp(req->checksum_key, PROTO_CHECKSUM_STDOUT) == 0) {
		/* No output line's key can be it; the hash is the checksum. */
		c.io.checksum_key = NULL;
		if ((c.io.sha = EVP_MD_CTX_new()) == NULL ||
		    EVP_DigestInit_ex(c.io.sha, EVP_sha256(), NULL) != 1)
			c.io.sha_failed = 1;
	}
	if (req->firstline != NULL && req->firstline_len > 1) {
		c.io.first = req->firstline;
		c.io.firstcap = req->firstline_len;
		c.io.first[0] = '\0';
	}
	c.io.outfd = c.io.errfd = -1;
	c.outp[0] = c.outp[1] = c.errp[0] = c.errp[1] = -1;
	c.pid = -1;
	if (exec_start(req, &c, out) == 0) {
		switch (exec_watch(req, &c, out)) {
		case 0:
			exec_result(req, &c, out);
			break;
		case 1:
			r = -1;		/* the lifeline closed */
			break;
		}
	}
	exec_cleanup(&c);
	return (r);
}

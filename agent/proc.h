/*
 * Keeping every process a benchmark starts within the agent's reach, and
 * telling a process from a later one that reuses its pid. What the OS must
 * provide is in proc-linux.c and proc-darwin.c; the sweep built on it is
 * in proc.c.
 */
#ifndef AGENT_PROC_H
#define AGENT_PROC_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#define PROC_IDENT_LEN	128	/* proc_ident: longest identity, with NUL */

/* One process of the system, as proc_list() sees it. */
struct proc_entry {
	pid_t	pid;
	pid_t	ppid;
	int	zombie;		/* dead, waiting to be reaped */
};

/*
 * Makes orphaned descendants of this process its children rather than
 * init's (Linux: PR_SET_CHILD_SUBREAPER), so that a benchmark that
 * double-forks stays within reach. Returns 1 when done, 0 where the OS has
 * no such thing (macOS), -1 with errno on failure.
 */
int	proc_init(void);

/*
 * Lists every process of the system into *list (free with free()), n
 * entries. Returns 0, or -1 with errno when the OS does not tell.
 */
int	proc_list(struct proc_entry **list, size_t *n);

/*
 * Kills (SIGKILL) every descendant of this process except keep, which it
 * also kills but does not reap, and reaps those that are its children,
 * until none is left or about a second has passed. keep is the benchmark's
 * own pid, which exec_run reaps itself; 0 for none. Returns how many
 * kills it sent, or -1 when the process list cannot be read.
 */
int	proc_sweep(pid_t keep);

/*
 * Writes into buf (PROC_IDENT_LEN bytes) a string naming process pid that
 * a later process with the same pid cannot have, even after a reboot
 * (Linux: the boot id and the start time in clock ticks; macOS: the boot
 * time and the start time). Returns 0, or -1 when there is no such process
 * or it cannot be read.
 */
int	proc_ident(pid_t pid, char *buf, size_t len);

/*
 * When a child was born, as near as its parent can tell without asking the
 * OS about it: proc_born_clock() just before the spawn and just after.
 */
struct proc_born {
	int64_t	lo;
	int64_t	hi;
};

/* The clock proc_born holds (Linux: CLOCK_BOOTTIME, ns); 0 where unused. */
int64_t	proc_born_clock(void);

/*
 * proc_ident of a child just spawned within *born, without reading about
 * the child where the OS's own stamp of its start can be told from born
 * (Linux: when lo and hi fall in one clock tick): the child is starting
 * beside this, inside its measured time. Else as proc_ident.
 */
int	proc_ident_born(pid_t pid, const struct proc_born *born, char *buf,
	    size_t len);

/*
 * Writes into buf a path that, while this process keeps fd open, a child
 * it spawns can execute to run the very file open on fd (Linux:
 * /proc/PID/fd/FD). Returns 0, or -1 where the OS has no such path (macOS,
 * or Linux without /proc).
 */
int	proc_fd_path(int fd, char *buf, size_t len);

#endif

/*
 * SSH sessions as OpenSSH users expect them (libssh2): host keys checked
 * against known_hosts as OpenSSH does (coordinator/hosts/knownhosts.c; the
 * host-key algorithm preference puts the known key types first),
 * authentication by ssh-agent identities then key files, commands by exec
 * of an argv quoted by shell_command(), files by SFTP.
 * One session per thread; the first ssh_open initialises libssh2, once.
 */
#ifndef COORDINATOR_SSH_H
#define COORDINATOR_SSH_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <libssh2.h>
#include <libssh2_sftp.h>

#include "coordinator/hosts/host-route.h"

#define SSH_ERR_LEN	512

struct ssh_target {
	const char	*name;		/* inventory name, for messages */
	const char	*address;
	int		 port;
	const char	*user;
	const char	*identity;	/* "" or NULL: reach's, else
					   ~/.ssh/id_ed25519, id_ecdsa */
	const struct host_reach *reach;	/* from ssh_config, or NULL */
	int		 accept_new;	/* add keys of hosts with none pinned */
	int		 timeout_ms;	/* connect and handshake */
	const struct ssh_target *jump;	/* reached through this host's
					   session, or NULL: directly */
};

struct ssh {
	int		 sock;
	LIBSSH2_SESSION	*session;
	char		 fingerprint[128];	/* "ED25519 SHA256:..." */
	char		 hostkey_status[64];	/* "known", "added", ... */
	char		 auth[256];		/* how we authenticated */

	/* Through a jump host: sock is our end of a socketpair. */
	struct ssh	*jump;		/* the jump host's session, or NULL */
	LIBSSH2_CHANNEL	*jchan;		/* direct-tcpip to this host */
	int		 pumpfd;	/* the pump's end of the socketpair */
	pthread_t	 pump;		/* moves bytes between the two */
	int		 pumping;
};

/*
 * Returns the known_hosts file in use: $ORCH_KNOWN_HOSTS or
 * ~/.ssh/known_hosts.
 */
const char *ssh_known_hosts_path(void);

/*
 * Connects (through t->jump's session when set, whose host key is
 * checked and which authenticates first, recursively), checks the host
 * key, authenticates. On failure returns -1 with words in err saying what
 * failed, at which host, and what to do. The session is blocking.
 */
int	ssh_open(struct ssh *s, const struct ssh_target *t, char *err,
	    size_t errlen);

/* Disconnects and frees; safe on a failed or closed session. */
void	ssh_close(struct ssh *s);

/*
 * Runs argv on the host (one line made by shell_command(), which the
 * remote user's shell splits back into argv) and waits for it, at most
 * timeout_ms; captures up to outlen-1 bytes of stdout and errlen-1 of
 * stderr (NUL-terminated). Returns the exit status (0..255; 128 + N,
 * and "killed by signal NAME" as errbuf's last line, when the command
 * died of signal N), or -1 on a transport failure (reason in errbuf), or
 * -2 on timeout.
 */
int	ssh_run(struct ssh *s, char *const argv[], const char *input,
	    char *out, size_t outlen, char *errbuf, size_t errlen,
	    int timeout_ms);

/*
 * As ssh_run, and once *stop (NULL: never) turns non-zero the channel is
 * closed and -3 returned; the remote command itself gets no signal.
 */
int	ssh_run_stop(struct ssh *s, char *const argv[], const char *input,
	    char *out, size_t outlen, char *errbuf, size_t errlen,
	    int timeout_ms, const atomic_int *stop);

/*
 * Copies a local file to remote path through a temporary name and a rename,
 * with large pipelined writes. mode is the file's permission bits. Creates
 * missing parent directories. With SSH_PUT_REPLACE a file already at remote
 * is replaced in one rename; with SSH_PUT_KEEP (a content-addressed name:
 * what is there holds the same bytes) a regular file of the same size
 * already there is kept, so that a program another run verified there
 * never changes under it. Returns 0 or -1 (err).
 */
#define SSH_PUT_REPLACE	0
#define SSH_PUT_KEEP	1
int	ssh_put(struct ssh *s, const char *local, const char *remote, long mode,
	    int how, uint64_t *bytes, char *err, size_t errlen);

/* Returns a remote path for SFTP: "~/x" becomes "x" (relative to home). */
const char *ssh_sftp_path(const char *path);

#endif

/*
 * Hosts from the user's ssh_config, as OpenSSH resolves them: `ssh -G
 * NAME` (spawned with an argv, never a shell) applies Include, Match and
 * wildcards exactly as ssh does, and prints the result; its output is
 * untrusted text, parsed and checked here key by key. See
 * docs/inventory.md.
 */
#ifndef COORDINATOR_SSHCONFIG_H
#define COORDINATOR_SSHCONFIG_H

#include <stddef.h>

#include "coordinator/hosts/host-route.h"

#define SSHCFG_OUT_MAX		(256 * 1024)	/* most of ssh -G's
						   output read */
#define SSHCFG_TIMEOUT		10000		/* ms for ssh -G to answer */

/* What ssh_config says about one host, checked. */
struct sshcfg {
	char	 hostname[256];
	char	 user[64];
	int	 port;
	struct host_reach reach;	/* identity files, known_hosts, alias */
	char	 proxyjump[1024];	/* "": none */
};

/*
 * Parses ssh -G's output text[0..len) for host name into c; %-tokens and
 * a leading ~/ in paths are expanded as ssh does. Returns 0, or -1 with
 * words in err naming the ssh_config host and the bad value.
 */
int	sshcfg_parse(const char *name, const char *text, size_t len,
	    struct sshcfg *c, char *err, size_t errlen);

/*
 * Takes key's list of known_hosts files (UserKnownHostsFile or
 * GlobalKnownHostsFile) as ssh -G printed it (value) whole: the line of
 * the config files it came from decides which blanks are inside quoted
 * paths. Writes the absolute paths into out[0..*nout) ("none" leaves
 * them out). Returns 0, or -1 with words in err naming
 * the ssh_config file and line (or the host) when the list is ambiguous,
 * a path relative or the list longer than HOST_KH_MAX.
 */
int	sshcfg_kh_list(const char *name, const char *key, const char *value,
	    const struct sshcfg *c, char out[][HOST_PATH_LEN], size_t *nout,
	    char *err, size_t errlen);

/*
 * Runs `ssh -G [-F file] -- name` (file NULL: the user's own config) and
 * parses its answer into c. Returns 0; 1 when no ssh client is installed;
 * -1 with words in err.
 */
int	sshcfg_query(const char *file, const char *name, struct sshcfg *c,
	    char *err, size_t errlen);

/*
 * Takes the next hop off a ProxyJump or jump list (*spec, advanced past
 * it and its comma): [ssh://][user@]host[:port], host a name or an IP
 * literal ([v6]:port in brackets). user is "" and *port 0 when not given.
 * Returns 1 with a hop, 0 at the end of the list, -1 with words in err.
 */
int	sshcfg_next_hop(const char **spec, char *user, size_t ulen,
	    char *host, size_t hlen, int *port, char *err, size_t errlen);

/*
 * Returns the ssh_config file given by --ssh-config or $ORCH_SSH_CONFIG, or
 * NULL.
 */
const char *sshcfg_file(void);

/*
 * Sets the file --ssh-config names (NULL: $ORCH_SSH_CONFIG, else the user's
 * own).
 */
void	sshcfg_set_file(const char *path);

#endif

/*
 * A run bound to the user who started it (run-bind.c): DIR/run.mac, an
 * HMAC-SHA256 under the user's own run key over the run's identity.
 */
#ifndef COORDINATOR_RUN_BIND_H
#define COORDINATOR_RUN_BIND_H

#include <stddef.h>

#define RUN_BIND_FILE	"run.mac"
#define RUN_BIND_HEX	65	/* the MAC in hex, and its NUL */

/* What the MAC covers: the run's id, its suite and its hosts. */
struct run_bind {
	const char		*run_id;
	const char		*suite_path;
	const char		*suite_text;	/* its SHA-256 is covered */
	const char *const	*hosts;		/* names, in any order */
	size_t			 nhosts;
};

/*
 * Reads the user's run key ($XDG_STATE_HOME/orch/run.key, else
 * $HOME/.local/state/orch/run.key; its path into path) into key (32
 * bytes); with create, makes it (0600, its directory 0700) when missing.
 * A key file that is not the user's own 0600 file is refused. Returns 0,
 * or -1 with *cause set (caller frees).
 */
int	run_bind_key(unsigned char *key, int create, char *path, size_t len,
	    char **cause);

/* Writes b's MAC under key into hex. Returns 0, or -1. */
int	run_bind_mac(const unsigned char *key, const struct run_bind *b,
	    char hex[RUN_BIND_HEX]);

/*
 * Writes DIR/run.mac for b, making the user's key at first use. Returns
 * 0, or -1 with *cause set (caller frees).
 */
int	run_bind_write(const char *dir, const struct run_bind *b,
	    char **cause);

/*
 * Returns 1 when DIR/run.mac is b's MAC under the user's key, else 0 with
 * *why set (caller frees) saying what is missing or wrong.
 */
int	run_bind_check(const char *dir, const struct run_bind *b, char **why);

#endif

/* The coordinator's named defaults and limits, in one place. */
#ifndef COORDINATOR_DEFAULTS_H
#define COORDINATOR_DEFAULTS_H

/*
 * The agent's workdir unless the inventory says otherwise (~: the host's
 * home).
 */
#define DEFAULT_WORKDIR		"~/.orch"
/* The same, below $HOME, for the local host (no shell expands ~ there). */
#define DEFAULT_WORKDIR_HOME	".orch"

/* Load per core above which a run waits, and orch check warns. */
#define DEFAULT_MAX_LOAD	(1.0 / 3)

#define DEFAULT_SSH_PORT	22
#define SSH_CONNECT_TIMEOUT	10000	/* ms to connect, handshake,
					   authenticate */
#define CHECK_DF_TIMEOUT	10000	/* ms for df in orch check */
#define CONTROL_SSH_TIMEOUT	20000	/* ms for the agent's status/stop
					   over SSH */
#define SSH_CLOSE_TIMEOUT	2000	/* ms to free a channel or say
					   goodbye */
#define SSH_REPLACE_TIMEOUT	20000	/* ms for "mv -f" of a pushed file
					   over the one it replaces */
#define FLOOR_TIMEOUT		10000	/* ms for one run of orch-null, the
					   floor */
#define CONTROL_LOCAL_TIMEOUT	15000	/* ms between lines of the local
					   agent's answer */

#endif

/*
 * Installing orch-agent on a host: a prebuilt binary, or built from source
 * there.
 */
#ifndef COORDINATOR_DEPLOY_H
#define COORDINATOR_DEPLOY_H

#include <stddef.h>

struct ssh;
struct host;

/* Sets the source tree (the directory holding agent/, proto/, Makefile). */
void	deploy_set_root(const char *root);

/* Sets where an installed orch keeps prebuilt agents (PREFIX/libexec/orch). */
void	deploy_set_libexec(const char *dir);

/* Sets the prebuilt agent for hosts of this machine's os/arch. */
void	deploy_set_agent(const char *path);

/* orch deploy: installs or updates the agent on every host at once. */
int	deploy_main(struct host *hosts, size_t n, int force);

/*
 * Makes sure WORKDIR/bin/orch-agent on the host is this version (force
 * 1: reinstall anyway; 2: reinstall built from source; -1: only check,
 * and fail when it is not). Pushes the prebuilt agent when one matches the
 * host's os/arch, else pushes the sources and builds them there with make.
 * On success *how says what was done ("up to date", "pushed prebuilt
 * linux-x86_64", "built from source"). Returns 0 or -1 with words in err
 * (a missing compiler or library names the package to install). The
 * workdir is checked first (deploy_workdir_check).
 */
int	deploy_agent(struct ssh *s, struct host *h, int force, char *how,
	    size_t howlen, char *err, size_t errlen);

/*
 * Finds the prebuilt agent for a host of os/arch ("darwin", "aarch64"):
 * ROOT/bin/agents/OS-ARCH/orch-agent, else ROOT/bin/OS-ARCH/orch-agent
 * (make darwin writes bin/darwin-aarch64/), else LIBEXEC/OS-ARCH/orch-agent
 * (make install puts them there), else this machine's own agent
 * when the host is of this machine's os/arch. Returns 0 with its path, or
 * -1 with path "" when none exists (the agent is then built on the host).
 */
int	deploy_prebuilt_path(const char *os, const char *arch, char *path,
	    size_t len);

/*
 * Writes the agent's workdir on the host as a word for a remote argv
 * (default ~/.orch; shell_command() makes a leading ~ the remote home).
 * Returns 0, or -1 when it does not fit in len.
 */
int	deploy_workdir(const struct host *h, char *out, size_t len);

/*
 * Makes the host's workdir 0700 when missing and checks it over s before
 * anything in it runs, with a fixed remote script: not the home directory
 * itself, no symbolic link on its path below the home directory, it and
 * its bin/orch-agent owned by the login user and not group or other
 * writable. Returns 0, or -1 with err "HOST: workdir PATH refused: why".
 */
int	deploy_workdir_check(struct ssh *s, const struct host *h, char *err,
	    size_t errlen);

#endif

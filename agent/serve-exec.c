/*
 * One run of a plan's command: its program (a verified cache file or a
 * host program, checked unchanged), its argv and environment, its pid
 * journaled as it starts.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/cache.h"
#include "agent/exec.h"
#include "agent/facts.h"
#include "agent/hostprog.h"
#include "agent/journal.h"
#include "agent/proc.h"
#include "agent/serve-int.h"
#include "proto/log.h"
#include "proto/util.h"
#include "proto/xmalloc.h"

extern char **environ;

/* Builds the environment of a command: ours, with cmd's entries on top. */
char **
serve_exec_envp(const struct proto_cmd *cmd)
{
	char		**envp;
	size_t		  n = 0, i, j, len;
	const char	 *eq;
	int		  shadowed;

	for (i = 0; environ[i] != NULL; i++)
		n++;
	envp = xcalloc(n + cmd->nenv + 1, sizeof *envp);
	n = 0;
	for (i = 0; environ[i] != NULL; i++) {
		shadowed = 0;
		for (j = 0; j < cmd->nenv && !shadowed; j++) {
			if ((eq = strchr(cmd->env[j], '=')) == NULL)
				continue;
			len = (size_t)(eq - cmd->env[j]) + 1;
			if (strncmp(environ[i], cmd->env[j], len) == 0)
				shadowed = 1;
		}
		if (!shadowed)
			envp[n++] = environ[i];
	}
	for (j = 0; j < cmd->nenv; j++)
		envp[n++] = cmd->env[j];
	envp[n] = NULL;
	return (envp);
}

/*
 * Pads the environment *envp of a measured run (not a warmup's, not a
 * hook's) of a plan with env_pad: ORCH_ENV_PAD of a length drawn from the
 * plan's seed, the step and the attempt, in place of any the agent has,
 * recorded in smp. Returns the variable (caller frees), or NULL for none.
 */
static char *
serve_exec_pad(const struct proto_plan *plan, struct proto_sample *smp,
    int hook, char ***envp)
{
	static const char	 name[] = "ORCH_ENV_PAD=";
	char			*var, **e;
	uint32_t		 len;
	size_t			 i, n;

	if (hook || smp->warmup || !plan->has_env_pad || plan->env_pad == 0)
		return (NULL);
	len = util_env_pad(plan->env_pad_seed, smp->step, smp->attempt,
	    plan->env_pad);
	var = xmalloc(sizeof name + len);
	memcpy(var, name, sizeof name - 1);
	memset(var + sizeof name - 1, 'x', len);
	var[sizeof name - 1 + len] = '\0';
	e = *envp;
	for (i = n = 0; e[i] != NULL; i++) {
		if (strncmp(e[i], name, sizeof name - 1) != 0)
			e[n++] = e[i];
	}
	e = xreallocarray(e, n + 2, sizeof *e);
	e[n] = var;
	e[n + 1] = NULL;
	*envp = e;
	smp->has_env_pad = 1;
	smp->env_pad = len;
	return (var);
}

/*
 * Finds cmd's program: a verified cache file of files, or a host program
 * resolved for this plan. Fills smp's reason and returns NULL when it
 * changed since it was hashed.
 */
static const struct cache_file *
serve_exec_prog(struct serve *s, const struct proto_plan *plan,
    const struct cache_file *files, const struct proto_cmd *cmd,
    struct proto_sample *smp)
{
	size_t	i;

	if (cmd->has_host) {
		for (i = 0; i < s->nprogs; i++) {
			if (strcmp(s->progs[i].name, cmd->host) != 0)
				continue;
			if (hostprog_unchanged(&s->progs[i].f))
				return (&s->progs[i].f);
			smp->status = PROTO_ST_FAILED;
			snprintf(smp->err_tail, sizeof smp->err_tail,
			    "host program %s (%s) changed since it was "
			    "hashed (SHA-256 %s)", cmd->host,
			    s->progs[i].f.path, s->progs[i].f.sha);
			return (NULL);
		}
		smp->status = PROTO_ST_FAILED;
		snprintf(smp->err_tail, sizeof smp->err_tail,
		    "host program %s was not resolved", cmd->host);
		return (NULL);
	}
	for (i = 0; i < plan->nfiles; i++) {
		/* The plan check guarantees it and holds it open. */
		if (strcmp(files[i].sha, cmd->exe) == 0 &&
		    cache_file_unchanged(&files[i]))
			return (&files[i]);
	}
	smp->status = PROTO_ST_FAILED;
	snprintf(smp->err_tail, sizeof smp->err_tail,
	    "program %s changed in the cache since it was verified",
	    cmd->exe);
	return (NULL);
}

/*
 * Journals the pid of a benchmark just started and what identifies it (no
 * flush: it is on its way).
 */
static void
serve_exec_spawned(long pid, const struct proc_born *born, void *arg)
{
	struct serve	*s = arg;
	char		 ident[PROC_IDENT_LEN];

	/* Started already, so its start time is set even before its exec. */
	if (proc_ident_born((pid_t)pid, born, ident, sizeof ident) != 0) {
		log_warnx("cannot tell process %ld apart from a later one: "
		    "a resume will leave it alone", pid);
		ident[0] = '\0';
	}
	if (journal_running(s->journal, s->cur_step, s->cur_attempt,
	    (uint32_t)pid, ident) != 0)
		log_warn("journal");
}

/*
 * Runs cmd once into smp: a measured run, or (hook) a hook's, which is
 * neither pinned, counted nor journaled. The benchmark outlives a lost
 * coordinator; only a stop (SIGTERM) kills it. Returns 0 or SERVE_STOP.
 */
int
serve_exec_run(struct serve *s, const struct proto_plan *plan,
    const struct cache_file *files, const struct proto_cmd *cmd,
    struct proto_sample *smp, int hook)
{
	const struct cache_file	*exe;
	struct exec_req		 req;
	char			**argv, **envp, exepath[PATH_MAX];
	char			*pad;
	char			 fdpath[64], named[PATH_MAX];
	char			 argv0[PROTO_PROG_MAX];
	size_t			 i;
	int			 r = 0, fd;

	if ((exe = serve_exec_prog(s, plan, files, cmd, smp)) == NULL)
		return (0);
	argv = xcalloc(cmd->nargs + 2, sizeof *argv);
	snprintf(exepath, sizeof exepath, "%s", exe->path);
	argv[0] = exepath;
	fd = exe->fd;
	/*
	 * A pushed program runs under its own base name, from a path that
	 * ends in it: a multi-call program (xzcat, busybox) reads its
	 * argv[0], others /proc/self/exe. Where no hard link can be made,
	 * the file itself runs, still as argv[0] its name.
	 */
	if (!cmd->has_host && cmd->has_name) {
		snprintf(argv0, sizeof argv0, "%s", cmd->name);
		argv[0] = argv0;
		if ((fd = cache_named(exe, cmd->name, named,
		    sizeof named)) == -1) {
			log_warn("cannot open %s under the name %s", exe->path,
			    cmd->name);
			fd = exe->fd;
		} else
			snprintf(exepath, sizeof exepath, "%s", named);
	}
	for (i = 0; i < cmd->nargs; i++)
		argv[i + 1] = cmd->args[i];
	envp = serve_exec_envp(cmd);
	pad = serve_exec_pad(plan, smp, hook, &envp);

	memset(&req, 0, sizeof req);
	req.argv = argv;
	/*
	 * A cache file runs from its descriptor, what was hashed; a host
	 * program by its path (a script's interpreter must open it), checked
	 * unchanged just before.
	 */
	req.path = NULL;
	if (!cmd->has_host)
		req.path = proc_fd_path(fd, fdpath, sizeof fdpath) == 0 ?
		    fdpath : exepath;
	req.envp = envp;
	req.cwd = s->rundir;
	req.timeout_ms = cmd->timeout_ms;
	req.lifeline_fd = serve_stop_pipe[0];
	if (!hook) {
		req.checksum_key = cmd->checksum_key;
		req.mkeys = cmd->mkeys;
		req.nmkeys = cmd->nmkeys;
		req.pin = s->pin;
		req.counters = s->counters;
		req.spawned = s->journal != -1 ? serve_exec_spawned : NULL;
		req.spawned_arg = s;
	}
	serve_gate_self_load(s, 1);
	if (exec_run(&req, smp) != 0)
		r = SERVE_STOP;
	serve_gate_self_load(s, 0);
	if (fd != exe->fd)
		close(fd);
	free(argv);
	free(envp);
	free(pad);
	return (r);
}

/*
 * Runs one attempt of one step into smp. Returns 0 or SERVE_STOP.
 */
int
serve_exec_step(struct serve *s, const struct proto_plan *plan,
    const struct cache_file *files, uint32_t stepno, uint32_t attempt,
    struct proto_sample *smp)
{
	const struct proto_step	*step = &plan->steps[stepno];
	const struct proto_cmd	*cmd = &plan->cmds[step->cmd];

	memset(smp, 0, sizeof *smp);
	smp->step = stepno;
	smp->cmd = step->cmd;
	smp->round = step->round;
	smp->warmup = step->warmup;
	smp->attempt = attempt;
	smp->load1 = facts_load1();
	s->cur_step = stepno;
	s->cur_attempt = attempt;
	return (serve_exec_run(s, plan, files, cmd, smp, 0));
}

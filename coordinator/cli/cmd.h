/*
 * orch's commands, as tmux keeps its own: one struct cmd_entry per
 * command, each in its file (cmd-NAME.c), all in cmd_table (cmd.c).
 * main() finds the entry for the first word and runs it. A command turns
 * its words into options (args.h), makes one call into the layers below
 * and returns the exit code; only the cli exits on bad usage or input.
 */
#ifndef COORDINATOR_CMD_H
#define COORDINATOR_CMD_H

#define CMD_AGENT	0x1	/* reaches hosts: find orch-agent first */

struct cmd_entry;

/* One command being run: its entry, its words and orch's. */
struct cmd {
	const struct cmd_entry	*entry;
	int			 argc;
	char			**argv;		/* argv[0]: its word */
	int			 all_argc;
	char			**all_argv;	/* orch's, as main() had */
};

struct cmd_entry {
	const char	*name;		/* as usage.c's table names it */
	const char	*alias;		/* other words for it, ' ' between */
	int		 flags;		/* CMD_* */
	int		(*exec)(struct cmd *);	/* returns the exit code */
};

extern const struct cmd_entry	cmd_baseline_entry;
extern const struct cmd_entry	cmd_doc_entry;
extern const struct cmd_entry	cmd_check_entry;
extern const struct cmd_entry	cmd_compare_entry;
extern const struct cmd_entry	cmd_deploy_entry;
extern const struct cmd_entry	cmd_help_entry;
extern const struct cmd_entry	cmd_history_entry;
extern const struct cmd_entry	cmd_index_entry;
extern const struct cmd_entry	cmd_report_entry;
extern const struct cmd_entry	cmd_run_entry;
extern const struct cmd_entry	cmd_status_entry;
extern const struct cmd_entry	cmd_stop_entry;
extern const struct cmd_entry	cmd_version_entry;

/* Every command, in the order of usage.c's table; a NULL ends it. */
extern const struct cmd_entry *const cmd_table[];

/* Returns the entry whose name or alias is word, or NULL. */
const struct cmd_entry *cmd_find(const char *word);

#endif

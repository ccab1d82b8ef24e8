/* The table of orch's commands, and finding one by its word. */
#include <stddef.h>
#include <string.h>

#include "coordinator/cli/cmd.h"

const struct cmd_entry *const cmd_table[] = {
	&cmd_run_entry,
	&cmd_check_entry,
	&cmd_deploy_entry,
	&cmd_status_entry,
	&cmd_stop_entry,
	&cmd_report_entry,
	&cmd_index_entry,
	&cmd_history_entry,
	&cmd_compare_entry,
	&cmd_baseline_entry,
	&cmd_doc_entry,
	&cmd_help_entry,
	&cmd_version_entry,
	NULL
};

/* Returns 1 when word is one of the blank-separated words of list. */
static int
cmd_in(const char *list, const char *word)
{
	size_t	n = strlen(word), w;

	while (list != NULL && *list != '\0') {
		w = strcspn(list, " ");
		if (w == n && strncmp(list, word, n) == 0)
			return (1);
		list += w;
		list += strspn(list, " ");
	}
	return (0);
}

const struct cmd_entry *
cmd_find(const char *word)
{
	const struct cmd_entry *const	*e;

	for (e = cmd_table; *e != NULL; e++) {
		if (strcmp((*e)->name, word) == 0 || cmd_in((*e)->alias, word))
			return (*e);
	}
	return (NULL);
}

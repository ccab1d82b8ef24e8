/* Remote command lines from an argv (see shell.h). */
#include <string.h>

#include "coordinator/hosts/shell.h"

/* Returns 1 when word needs no quotes for any POSIX shell (or zsh). */
static int
shell_plain(const char *word)
{
	const char	*p;

	if (*word == '\0' || *word == '=')
		return (0);
	for (p = word; *p != '\0'; p++) {
		if (strchr("_./,:+-=", *p) == NULL &&
		    !(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') &&
		    !(*p >= '0' && *p <= '9'))
			return (0);
	}
	return (1);
}

/* Appends n bytes of s at *o, if they fit before end. */
static int
shell_put(char **o, const char *end, const char *s, size_t n)
{
	if ((size_t)(end - *o) <= n)
		return (-1);
	memcpy(*o, s, n);
	*o += n;
	return (0);
}

/* Appends s in single quotes ('' when s is empty). */
static int
shell_single(char **o, const char *end, const char *s)
{
	const char	*q;

	if (shell_put(o, end, "'", 1) != 0)
		return (-1);
	while ((q = strchr(s, '\'')) != NULL) {
		if (shell_put(o, end, s, (size_t)(q - s)) != 0 ||
		    shell_put(o, end, "'\\''", 4) != 0)
			return (-1);
		s = q + 1;
	}
	if (shell_put(o, end, s, strlen(s)) != 0 ||
	    shell_put(o, end, "'", 1) != 0)
		return (-1);
	return (0);
}

int
shell_quote(char *out, size_t len, const char *word)
{
	size_t		 used = strnlen(out, len);
	char		*o = out + used;
	const char	*end = out + len, *tilde = NULL, *eq;
	int		 r = -1;

	if (used == len)
		return (-1);
	/* The remote home: "~", "~/...", "--NAME=~", "--NAME=~/...". */
	if (word[0] == '~')
		tilde = word;
	else if (strncmp(word, "--", 2) == 0 && (eq = strchr(word, '=')) !=
	    NULL && eq[1] == '~')
		tilde = eq + 1;
	if (tilde != NULL && tilde[1] != '\0' && tilde[1] != '/')
		tilde = NULL;

	if (tilde == NULL) {
		if (shell_plain(word))
			r = shell_put(&o, end, word, strlen(word));
		else
			r = shell_single(&o, end, word);
		goto out;
	}
	if (tilde != word) {
		char	head[256];

		if ((size_t)(tilde - word) >= sizeof head)
			goto out;
		memcpy(head, word, (size_t)(tilde - word));
		head[tilde - word] = '\0';
		if ((shell_plain(head) ? shell_put(&o, end, head,
		    strlen(head)) : shell_single(&o, end, head)) != 0)
			goto out;
	}
	if (shell_put(&o, end, "\"$HOME\"", 7) != 0)
		goto out;
	if (tilde[1] == '\0')
		r = 0;
	else if (shell_plain(tilde + 1))
		r = shell_put(&o, end, tilde + 1, strlen(tilde + 1));
	else
		r = shell_single(&o, end, tilde + 1);
out:
	if (r != 0) {
		out[used] = '\0';
		return (-1);
	}
	*o = '\0';
	return (0);
}

int
shell_command(char *out, size_t len, char *const argv[])
{
	size_t	i, used;

	if (len == 0)
		return (-1);
	out[0] = '\0';
	if (argv[0] == NULL)
		return (-1);
	for (i = 0; argv[i] != NULL; i++) {
		if (i > 0) {
			if ((used = strlen(out)) + 1 >= len) {
				out[0] = '\0';
				return (-1);
			}
			out[used] = ' ';
			out[used + 1] = '\0';
		}
		if (shell_quote(out, len, argv[i]) != 0) {
			out[0] = '\0';
			return (-1);
		}
	}
	return (0);
}

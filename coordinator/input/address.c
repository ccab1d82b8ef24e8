/* Host addresses as the inventory and ssh_config may give them. */
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <ctype.h>
#include <string.h>

#include "coordinator/input/address.h"

/*
 * Returns 1 if s is an IPv4 or IPv6 literal (an IPv6 one may carry a
 * %zone of letters, digits, '_', '.' and '-') or a host name: dot-separated
 * labels of 1 to 63 letters, digits, '-' and '_', none starting or ending
 * with '-', an optional final dot. So an address is never an option and
 * never holds a character a shell would act on.
 */
int
address_ok(const char *s)
{
	struct in6_addr	 a6;
	struct in_addr	 a4;
	char		 buf[INET6_ADDRSTRLEN + 64];
	const char	*p, *label;
	size_t		 n;

	if ((n = strlen(s)) == 0)
		return (0);
	if (inet_pton(AF_INET, s, &a4) == 1)
		return (1);
	if (strchr(s, ':') != NULL) {
		if (n >= sizeof buf)
			return (0);
		memcpy(buf, s, n + 1);
		if ((p = strchr(buf, '%')) != NULL) {
			if (p[1] == '\0')
				return (0);
			for (label = p + 1; *label != '\0'; label++) {
				if (!isalnum((unsigned char)*label) &&
				    strchr("_.-", *label) == NULL)
					return (0);
			}
			buf[p - buf] = '\0';
		}
		return (inet_pton(AF_INET6, buf, &a6) == 1);
	}
	label = s;
	for (p = s;; p++) {
		if (*p == '.' || *p == '\0') {
			n = (size_t)(p - label);
			if (n == 0 && !(*p == '\0' && p != s && p[-1] == '.'))
				return (0);	/* empty label, but
						   "a.b." is fine */
			if (n > 63 || (n > 0 && (label[0] == '-' ||
			    p[-1] == '-')))
				return (0);
			if (*p == '\0')
				return (1);
			label = p + 1;
		} else if (!isalnum((unsigned char)*p) && *p != '-' &&
		    *p != '_')
			return (0);
	}
}

/*
 * The audit delivery check (audit_delivery.h). It MUST send nothing to the
 * log and MUST NOT change where records go: it only connects and closes.
 */
#include "audit_delivery.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "text.h"

/* glibc's _PATH_LOG: where syslog(3) sends, the one place that matters. */
#define LOG_SOCKET "/dev/log"
#define JOURNAL_DIR "/run/systemd/journal/"

static int connect_as(int type)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int saved;
	int fd;

	memcpy(sa.sun_path, LOG_SOCKET, sizeof(LOG_SOCKET));
	fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		saved = errno;
		close(fd);
		return -saved;
	}
	close(fd);
	return 0;
}

static void name_receiver(char *receiver, size_t len)
{
	char *target = realpath(LOG_SOCKET, NULL);

	str_copy(receiver, len, target != NULL &&
		 strncmp(target, JOURNAL_DIR, strlen(JOURNAL_DIR)) == 0 ?
		 "the journal" : "a syslog daemon");
	free(target);
}

bool audit_delivery_probe(char *receiver, size_t receiver_len, struct pst_err *why)
{
	struct stat st;
	int rc;

	str_copy(receiver, receiver_len, "nothing");
	if (stat(LOG_SOCKET, &st) != 0) {
		pst_fail(why, errno, LOG_SOCKET " %s",
			 errno == ENOENT ? "does not exist: no syslog daemon and no journal is running"
					 : strerror(errno));
		return false;
	}
	if (!S_ISSOCK(st.st_mode)) {
		pst_fail(why, ENOTSOCK, LOG_SOCKET " is not a socket: no syslog daemon made it");
		return false;
	}
	/* syslog(3) tries a datagram socket first, then a stream one. */
	rc = connect_as(SOCK_DGRAM);
	if (rc == -EPROTOTYPE)
		rc = connect_as(SOCK_STREAM);
	if (rc == -ECONNREFUSED)
		pst_fail(why, -rc, LOG_SOCKET " refuses records: the syslog daemon or journal that made it is not running");
	else if (rc == -EACCES || rc == -EPERM)
		pst_fail(why, -rc, LOG_SOCKET " is not writable by uid %ld", (long)geteuid());
	else if (rc < 0)
		pst_fail(why, -rc, LOG_SOCKET ": %s", strerror(-rc));
	if (rc < 0)
		return false;
	name_receiver(receiver, receiver_len);
	return true;
}

int audit_delivery_check(const char *prog, enum audit_operation op,
			 enum audit_on_failure on_failure, struct pst_err *e)
{
	static bool warned;
	struct pst_err why;
	char receiver[32];

	if (audit_delivery_probe(receiver, sizeof(receiver), &why))
		return 0;
	if (op == AUDIT_OP_CHANGE && on_failure != AUDIT_ON_FAILURE_CONTINUE)
		return pst_fail(e, EPIPE, "refused, nothing changed: audit records cannot be delivered (%s); "
				"start rsyslog or systemd-journald, or set audit.on_failure: continue in postern.yaml "
				"to go on without an audit trail", why.msg);
	if (!warned) {
		warned = true;
		fprintf(stderr, "%s: warning: audit records cannot be delivered (%s); going on without an audit trail: "
			"start rsyslog or systemd-journald\n", prog, why.msg);
	}
	return 0;
}

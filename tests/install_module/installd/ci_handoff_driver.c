/*
 * The tests' stand-in for postern-ci's HTTP side, not for its handoff: it
 * opens FILE as the calling user and hands it to the real daemon through
 * the real ci_handoff_install(), with the job given on the command line as
 * a verified token would give it.
 *
 *   ci-handoff-driver SOCKET FILE ISSUER PROJECT REF REF_TYPE PROTECTED
 *                     PIPELINE JOB SHA USER [dry-run]
 *
 * Prints "STATUS installed PATH SHA256" or "STATUS refused: TEXT". Exit
 * status 0 installed, 1 refused, 2 the daemon could not be asked.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "installd_handoff.h"
#include "text.h"

int main(int argc, char **argv)
{
	struct oidc_claims job;
	struct ci_handoff h;
	struct ci_handoff_answer a;
	struct pst_err e;
	const char *name;
	int fd;

	if (argc != 12 && argc != 13) {
		fprintf(stderr, "usage: ci-handoff-driver SOCKET FILE ISSUER PROJECT REF REF_TYPE "
			"PROTECTED PIPELINE JOB SHA USER [dry-run]\n");
		return 2;
	}
	memset(&job, 0, sizeof(job));
	str_copy(job.project, sizeof(job.project), argv[4]);
	str_copy(job.ref, sizeof(job.ref), argv[5]);
	str_copy(job.ref_type, sizeof(job.ref_type), argv[6]);
	job.ref_protected = strcmp(argv[7], "yes") == 0;
	str_copy(job.pipeline, sizeof(job.pipeline), argv[8]);
	str_copy(job.job, sizeof(job.job), argv[9]);
	str_copy(job.sha, sizeof(job.sha), argv[10]);
	str_copy(job.user, sizeof(job.user), argv[11]);
	h = (struct ci_handoff){ argv[1], argv[3], &job, "127.0.0.1", argc == 13 };
	fd = open(argv[2], O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		perror(argv[2]);
		return 2;
	}
	name = strrchr(argv[2], '/') ? strrchr(argv[2], '/') + 1 : argv[2];
	if (ci_handoff_install(&h, fd, name, -1, WIRE_SIG_NONE, &a, &e) < 0) {
		fprintf(stderr, "ci-handoff-driver: %s\n", e.msg);
		return 2;
	}
	if (a.installed)
		printf("%d installed %s %s\n", a.http_status, a.path, a.sha256);
	else
		printf("%d refused: %s\n", a.http_status, a.text);
	return a.installed ? 0 : 1;
}

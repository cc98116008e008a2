/*
 * Formats the release mail and hands it to sendmail -t (release_mail.h). It must
 * never run a shell or put NEWS text anywhere but the body.
 */
#define _GNU_SOURCE
#include "release_mail.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "release_name.h"
#include "safefile.h"
#include "spawn.h"

#define SENDMAIL "/usr/sbin/sendmail"
#define MAIL_TIMEOUT_MS 60000

void release_mail_format(const struct installd *d, const struct hook_facts *f, struct strbuf *b)
{
	struct release_name rn;
	const char *suffix = "tar.xz";

	if (release_name_parse(f->file, &rn, NULL) == 0)
		suffix = release_compression_suffix(rn.compression);
	if (d->set->mail_from != NULL)
		strbuf_addf(b, "From: %s\n", d->set->mail_from);
	strbuf_addf(b, "To: %s\n", d->set->mail_to);
	strbuf_addf(b, "Subject: %s %s\n", f->module, f->version);
	strbuf_addf(b, "X-Module-Name: %s\n", f->module);
	strbuf_addf(b, "X-Module-Version: %s\n", f->version);
	strbuf_addf(b, "X-Maintainer-Upload: %s\n", f->maintainer ? "yes" : "no");
	strbuf_addf(b, "X-Module-SHA256-%s: %s\n", suffix, f->sha256);
	if (f->signer != NULL)
		strbuf_addf(b, "X-Module-Signer: %s\n", f->signer);
	strbuf_add(b, "MIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\n\n");
	strbuf_addf(b, "%s %s was released by %s%s.\n\n", f->module, f->version, f->user,
		    f->maintainer ? "" : " (not a maintainer of the module)");
	strbuf_addf(b, "  sources/%s/%s/%s\n  sha256: %s\n", f->module, f->dir, f->file, f->sha256);
	if (f->signer != NULL)
		strbuf_addf(b, "  signature: sources/%s/%s/%s\n  signed by OpenPGP key %s\n",
			    f->module, f->dir, f->signature, f->signer);
	else
		strbuf_add(b, "  not signed\n");
	if (f->news_head[0] != '\0') {
		strbuf_add(b, "\nNEWS (top):\n\n");
		strbuf_add(b, f->news_head);
		strbuf_add(b, "\n");
	}
}

static void sendmail_child(int in)
{
	static const char *const argv[] = { SENDMAIL, "-t", "-oi", NULL };
	static char path[] = "PATH=/usr/sbin:/usr/bin:/sbin:/bin";
	char *const envp[] = { path, NULL };
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (devnull < 0 || dup2(in, 0) < 0 || dup2(devnull, 1) < 0)
		_exit(126);
	fds_close_from(3);
	execve(argv[0], (char *const *)argv, envp);
	_exit(127); /* fail safe */
}

/* Wait at most MAIL_TIMEOUT_MS for pid, then kill it. */
static int wait_bounded(pid_t pid)
{
	const struct timespec tick = { 0, 20 * 1000 * 1000 };
	int status = 0;
	int waited = 0;

	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (waited >= MAIL_TIMEOUT_MS) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -ETIMEDOUT;
		}
		nanosleep(&tick, NULL);
		waited += 20;
	}
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}

void release_mail_send(const struct installd *d, const struct hook_facts *f)
{
	struct strbuf b = { 0 };
	int fd = memfd_create("postern-mail", MFD_CLOEXEC);
	pid_t pid;
	int rc = -EIO;

	release_mail_format(d, f, &b);
	if (fd >= 0 && !b.failed && sf_write_full(fd, b.s, b.len) == 0 && lseek(fd, 0, SEEK_SET) == 0) {
		pid = fork();
		if (pid == 0)
			sendmail_child(fd);
		rc = pid < 0 ? -errno : wait_bounded(pid);
	}
	if (rc < 0)
		syslog(LOG_ERR, "release mail for %s %s to %s failed: %s", f->module, f->version,
		       d->set->mail_to, strerror(-rc));
	if (fd >= 0)
		close(fd);
	strbuf_free(&b);
}

/*
 * syslog-capture [--log=capture|absent|refusing] OUTFILE -- COMMAND [ARG...]
 *
 * Runs COMMAND with a /dev/log of its own, in a private mount namespace, and
 * appends every datagram sent there to OUTFILE as a traditional auth.log
 * line ("Mmm dd hh:mm:ss host tag[pid]: message"), escaping control
 * characters as rsyslog does (#ooo). Exits with COMMAND's status.
 *
 * This is how process-level tests read audit records: the programs under
 * test keep calling syslog(3) exactly as in production. Building a private
 * /dev needs CAP_SYS_ADMIN, so nobody can use this to divert the records of
 * a privileged process they do not already control.
 *
 * --log=absent gives COMMAND no /dev/log at all, and --log=refusing one that
 * refuses every record (a socket nobody listens on, as a crashed syslog
 * daemon leaves behind); both also hide journald's sockets. That is how the
 * tests see what postern does when its audit records cannot be delivered.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

enum log_mode { LOG_CAPTURE, LOG_ABSENT, LOG_REFUSING };

static char workdir[] = "/tmp/postern-syslog-XXXXXX";
static enum log_mode log_mode = LOG_CAPTURE;
static char sockpath[128];
static char olddev[128];

static void die(const char *what)
{
	fprintf(stderr, "syslog-capture: %s: %s\n", what, strerror(errno));
	exit(125);
}

static void bind_entry(const char *name, const struct stat *st)
{
	char src[512], dst[512], link[512];
	ssize_t n;
	int fd;

	snprintf(src, sizeof(src), "%s/%s", olddev, name);
	snprintf(dst, sizeof(dst), "/dev/%s", name);
	if (S_ISLNK(st->st_mode)) {
		n = readlink(src, link, sizeof(link) - 1);
		if (n < 0)
			return;
		link[n] = '\0';
		if (symlink(link, dst) != 0)
			die(dst);
		return;
	}
	if (S_ISDIR(st->st_mode)) {
		if (mkdir(dst, 0755) != 0)
			die(dst);
	} else {
		fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0)
			die(dst);
		close(fd);
	}
	if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL) != 0)
		die(dst);
}

/* No journal; and with LOG_REFUSING a /dev/log socket nobody listens on. */
static void no_log_daemon(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int fd;

	if (stat("/run/systemd/journal", &st) == 0 &&
	    mount("tmpfs", "/run/systemd/journal", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755") != 0)
		die("hiding /run/systemd/journal");
	if (log_mode != LOG_REFUSING)
		return;
	strcpy(sa.sun_path, "/dev/log");
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    chmod("/dev/log", 0666) != 0)
		die("a refusing /dev/log");
	close(fd);
}

/* A fresh /dev holding everything the old one had, except its log. */
static void private_dev(void)
{
	struct dirent *de;
	struct stat st;
	char path[512];
	DIR *d;
	int fd;

	if (unshare(CLONE_NEWNS) != 0)
		die("unshare(CLONE_NEWNS) (this needs root)");
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		die("making / private");
	if (mkdir(olddev, 0700) != 0 ||
	    mount("/dev", olddev, NULL, MS_BIND | MS_REC, NULL) != 0)
		die("binding the old /dev");
	if (mount("tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755") != 0)
		die("mounting a tmpfs on /dev");
	d = opendir(olddev);
	if (d == NULL)
		die(olddev);
	while ((de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    !strcmp(de->d_name, "log") || !strcmp(de->d_name, "pts") ||
		    !strcmp(de->d_name, "ptmx"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", olddev, de->d_name);
		if (lstat(path, &st) == 0)
			bind_entry(de->d_name, &st);
	}
	closedir(d);
	/* A bind-mounted ptmx looks for its devpts beside itself and finds
	 * none; a devpts instance of our own is what containers use. */
	if (mkdir("/dev/pts", 0755) != 0 ||
	    mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
		  "newinstance,ptmxmode=0666,mode=0620") != 0 ||
	    symlink("pts/ptmx", "/dev/ptmx") != 0)
		die("a private /dev/pts");
	if (log_mode == LOG_CAPTURE) {
		fd = open("/dev/log", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0)
			die("/dev/log");
		close(fd);
		if (mount(sockpath, "/dev/log", NULL, MS_BIND, NULL) != 0)
			die("binding /dev/log");
	} else {
		no_log_daemon();
	}
	if (umount2(olddev, MNT_DETACH) != 0)
		die("detaching the old /dev");
}

/* "<PRI>Mmm dd hh:mm:ss tag: msg" -> "Mmm dd hh:mm:ss host tag: msg" */
static void write_line(FILE *out, const char *host, const char *dgram, size_t len)
{
	const char *p = dgram;
	const char *end = dgram + len;

	if (p < end && *p == '<') {
		while (p < end && *p != '>')
			p++;
		if (p < end)
			p++;
	}
	while (end > p && end[-1] == '\n')
		end--;
	if (end - p > 16 && p[15] == ' ') {
		fwrite(p, 1, 16, out);
		fprintf(out, "%s ", host);
		p += 16;
	}
	for (; p < end; p++) {
		unsigned char c = (unsigned char)*p;
		if (c < 0x20 || c == 0x7f)
			fprintf(out, "#%03o", c);
		else
			fputc(c, out);
	}
	fputc('\n', out);
	fflush(out);
}

static int drain(int sock, FILE *out, const char *host, int timeout_ms)
{
	char buf[8192];
	struct pollfd pfd = { .fd = sock, .events = POLLIN };
	ssize_t n;
	int got = 0;

	while (poll(&pfd, 1, timeout_ms) > 0) {
		n = recv(sock, buf, sizeof(buf), 0);
		if (n <= 0)
			break;
		write_line(out, host, buf, (size_t)n);
		got++;
		timeout_ms = 0;
	}
	return got;
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char host[256] = "localhost";
	int status = 0;
	FILE *out;
	pid_t pid;
	int sock;

	if (argc > 1 && strncmp(argv[1], "--log=", 6) == 0) {
		if (strcmp(argv[1], "--log=absent") == 0)
			log_mode = LOG_ABSENT;
		else if (strcmp(argv[1], "--log=refusing") == 0)
			log_mode = LOG_REFUSING;
		else if (strcmp(argv[1], "--log=capture") != 0)
			argc = 0;
		argv++;
		argc--;
	}
	if (argc < 4 || strcmp(argv[2], "--") != 0) {
		fprintf(stderr, "usage: syslog-capture [--log=capture|absent|refusing] OUTFILE -- COMMAND [ARG...]\n");
		return 125;
	}
	gethostname(host, sizeof(host) - 1);
	if (mkdtemp(workdir) == NULL || chmod(workdir, 0755) != 0)
		die("mkdtemp");
	snprintf(sockpath, sizeof(sockpath), "%s/log", workdir);
	snprintf(olddev, sizeof(olddev), "%s/olddev", workdir);
	strcpy(sa.sun_path, sockpath);
	sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sock < 0 || bind(sock, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    chmod(sockpath, 0666) != 0)
		die("binding the capture socket");
	out = fopen(argv[1], "ae");
	if (out == NULL)
		die(argv[1]);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		private_dev();
		execvp(argv[3], argv + 3);
		die(argv[3]);
	}
	for (;;) {
		drain(sock, out, host, 100);
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
	}
	/* Let late records from the command's own children arrive. */
	drain(sock, out, host, 200);
	fclose(out);
	close(sock);
	unlink(sockpath);
	rmdir(olddev);
	rmdir(workdir);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

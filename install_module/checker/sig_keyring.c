/*
 * Converting an armored keyring for gpgv (see sig_keyring.h).
 *
 * MUST: give gpg only the keyring (stdin), a pipe (stdout) and /dev/null
 * (stderr); read its output with the keyring's own cap.
 */
#define _GNU_SOURCE
#include "sig_keyring.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sig_confine.h"
#include "sig_verifier.h"

/* An OpenPGP packet's first octet always has its high bit set; armor starts with text. */
#define PACKET_TAG_BIT 0x80

static int keyring_is_binary(int keyring)
{
	unsigned char first = 0;

	return pread(keyring, &first, 1, 0) == 1 && (first & PACKET_TAG_BIT) != 0;
}

/* gpg's stdout into a new memfd, at most SIG_KEYRING_MAX bytes; -EFBIG beyond. */
static int output_collect(int from, struct pst_err *e)
{
	static char buf[64 * 1024];
	int m = memfd_create("keyring-binary", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	size_t total = 0;
	ssize_t n;

	if (m < 0)
		return pst_fail(e, errno, "cannot make a memfd: %s", strerror(errno));
	for (;;) {
		n = read(from, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		total += (size_t)n;
		if (total > SIG_KEYRING_MAX || write(m, buf, (size_t)n) != n) {
			close(m);
			return -EFBIG;
		}
	}
	if (n < 0 || fcntl(m, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
		close(m);
		return pst_fail(e, EIO, "cannot collect the converted keyring");
	}
	return m;
}

static int reap(pid_t pid)
{
	int status = 0;
	pid_t got;

	do
		got = waitpid(pid, &status, 0);
	while (got < 0 && errno == EINTR);
	return got == pid && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int sig_keyring_binary(int keyring, const struct sandbox_limits *c, struct pst_err *e)
{
	char *const argv[] = { (char *)"gpg", (char *)"--batch", (char *)"--no-options",
			       (char *)"--homedir", (char *)"/nonexistent", (char *)"--dearmor", NULL };
	int out[2], child[3], m, status;
	pid_t pid;

	if (keyring_is_binary(keyring)) {
		m = fcntl(keyring, F_DUPFD_CLOEXEC, 0);
		return m >= 0 ? m : pst_fail(e, errno, "cannot duplicate the keyring's fd: %s",
					     strerror(errno));
	}
	if (lseek(keyring, 0, SEEK_SET) != 0 || pipe2(out, O_CLOEXEC) != 0)
		return pst_fail(e, errno, "cannot prepare the keyring's conversion: %s", strerror(errno));
	child[0] = keyring;
	child[1] = out[1];
	child[2] = open("/dev/null", O_WRONLY | O_CLOEXEC);
	pid = child[2] < 0 ? pst_fail(e, errno, "cannot open /dev/null: %s", strerror(errno))
		: sig_confined_spawn(child, 3, c, SIG_TOOL_GNUPG, SIG_DEARMOR_PATH, argv, e);
	close(out[1]);
	if (child[2] >= 0)
		close(child[2]);
	if (pid < 0) {
		close(out[0]);
		return pid;
	}
	m = output_collect(out[0], e);
	close(out[0]);
	status = reap(pid);
	if (m >= 0 && status == 0)
		return m;
	if (m >= 0)
		close(m);
	if (status == SIG_VERIFIER_EXEC_FAILED)
		return pst_fail(e, ENOENT, "gpg (" SIG_DEARMOR_PATH ") cannot be run to read an "
				"armored keyring: is the gpg package installed?");
	if (m < 0 && m != -EFBIG)
		return m;
	return pst_fail(e, EBADMSG, "your OpenPGP keyring on this server is neither binary "
			"OpenPGP nor armored OpenPGP that gpg --dearmor reads: the server's admins "
			"must fix it (gpg --export KEY > FILE); your upload is not at fault");
}

/*
 * totp_login_bench: the measuring half of bench/totp. Logs in as sshd does,
 * and must never be more than a benchmark (it answers any prompt with the
 * code it was given).
 *
 *   totp_login_bench CODES FLOOR_SERVICE [sk:]SERVICE...
 *
 * CODES has "user code key" lines (totp_bench codes). A login names as the
 * key sshd accepted (SSH_AUTH_INFO_0) a plain ssh-ed25519 key, the same for
 * every user; a service given as sk:NAME logs in through the service NAME
 * with the user's security key instead (key: the base64 of its
 * sk-ssh-ed25519 blob), which pam_postern admits without a prompt, so any
 * prompt there fails the login rather than being answered.
 *
 * Each login is what sshd makes of a connection: a fork of the listener that
 * re-executes itself (this program, with --login), links libcrypto and
 * initialises it the way OpenSSH does (all ciphers, all digests, the
 * configuration file) and links libpam and nothing else a module could use,
 * then pam_start, pam_authenticate, pam_end and exit, through a real
 * Linux-PAM service file in /etc/pam.d. So every module is loaded,
 * relocated, run and unloaded once per login, at a fresh address each time
 * (the exec re-randomises the layout as sshd's does; a fork of one parent
 * would put every login of a run at the same addresses and let one lucky or
 * unlucky layout decide the run). For every "user code" line of CODES the
 * services take turns (the order rotates line by line, so a busy machine
 * slows all alike); FLOOR_SERVICE (pam_permit.so) is the cost of the
 * process, the exec and PAM itself.
 *
 * Per service it prints one line: name, logins, failed logins, median wall
 * and CPU time of a login in us (fork to reaped child; CPU is the child's
 * user + system time from wait4), and the median over the floor of each
 * (the floor login of the same line subtracted, so both saw the same load),
 * and the median number of page faults over the floor.
 */
#include <openssl/crypto.h>
#include <pwd.h>
#include <security/pam_appl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "postern_limits.h"

#define LOGINS_MAX 1000
#define SERVICES_MAX 8
#define SK_PREFIX "sk:"
/* Any plain key: what sshd reports for a login with one. */
#define PLAIN_KEY "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJArrxC6M9Gjp8UbSL8jRkz3OuKi+tjeXuK/l93STtDT"
#define SK_KEY_TYPE "sk-ssh-ed25519@openssh.com"

struct login {
	char user[NAME_USER_MAX + 1];
	char code[16];
	char sk[128];    /* base64 of the user's security key blob */
};

struct series {
	const char *service;
	bool sk;         /* logs in with the user's security key */
	double wall[LOGINS_MAX];
	double cpu[LOGINS_MAX];
	double faults[LOGINS_MAX];
	unsigned failed;
};

/* Any prompt answered with the code; with no code (a security-key login), refused. */
static int answer(int n, const struct pam_message **msg, struct pam_response **resp, void *data)
{
	const char *code = data;
	struct pam_response *r;
	int i;

	if (code == NULL)
		return PAM_CONV_ERR;
	r = calloc((size_t)n, sizeof(*r));
	if (r == NULL)
		return PAM_BUF_ERR;
	for (i = 0; i < n; i++)
		if (msg[i]->msg_style == PAM_PROMPT_ECHO_OFF)
			r[i].resp = strdup(code);
	*resp = r;
	return PAM_SUCCESS;
}

/*
 * OpenSSH's auth-pam.c runs pam_authenticate() in its "PAM thread", which
 * is a fork of the monitor unless sshd was built with POSIX threads
 * (Debian's is not); the monitor keeps the handle for pam_end().
 */
static int authenticate_in_fork(pam_handle_t *h)
{
	int status = 0;
	pid_t pid = fork();

	if (pid < 0)
		return PAM_SYSTEM_ERR;
	if (pid == 0)
		_exit(pam_authenticate(h, 0) == PAM_SUCCESS ? 0 : 1);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return PAM_AUTH_ERR;
	return PAM_SUCCESS;
}

/* The re-executed process: what sshd's monitor does for one keyboard-interactive login. */
/* Whether user, code and key fit l whole: a cut name would log in as someone else. */
static bool login_set(struct login *l, const char *user, const char *code, const char *sk)
{
	size_t ulen = strlen(user);
	size_t clen = strlen(code);
	size_t klen = strlen(sk);

	if (ulen >= sizeof(l->user) || clen >= sizeof(l->code) || klen >= sizeof(l->sk))
		return false;
	memcpy(l->user, user, ulen + 1);
	memcpy(l->code, code, clen + 1);
	memcpy(l->sk, sk, klen + 1);
	return true;
}

/* With sk, the user's security key is the key sshd accepted, and no code is given. */
static void login_child(const char *service, const struct login *l, bool sk)
{
	struct pam_conv conv = { answer, sk ? NULL : (void *)l->code };
	char info[sizeof("SSH_AUTH_INFO_0=publickey ") + sizeof(SK_KEY_TYPE) + sizeof(l->sk)];
	pam_handle_t *h = NULL;
	int rc;

	if (sk)
		snprintf(info, sizeof(info), "SSH_AUTH_INFO_0=publickey %s %s", SK_KEY_TYPE, l->sk);
	else
		snprintf(info, sizeof(info), "SSH_AUTH_INFO_0=publickey %s", PLAIN_KEY);

	/* sshd's monitor looks the user up before it starts PAM (getpwnamallow),
	 * so NSS is loaded and has read passwd once when the modules run. */
	if (getpwnam(l->user) == NULL)
		_exit(2);
	if (pam_start(service, l->user, &conv, &h) != PAM_SUCCESS)
		_exit(2);
	pam_set_item(h, PAM_RHOST, "192.0.2.7");
	pam_putenv(h, info);
	pam_putenv(h, "SSH_CONNECTION=192.0.2.7 50122 192.0.2.1 22");
	rc = authenticate_in_fork(h);
	pam_end(h, rc);
	_exit(rc == PAM_SUCCESS ? 0 : 1);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static double tv_us(struct timeval tv)
{
	return (double)tv.tv_sec * 1e6 + (double)tv.tv_usec;
}

/* As sshd re-executes itself for a connection: a fresh image, no environment. */
static void reexec_login(const struct series *s, const struct login *l)
{
	char *const argv[] = { "totp_login_bench", s->sk ? "--login-sk" : "--login",
			       (char *)s->service, (char *)l->user, (char *)l->code,
			       (char *)l->sk, NULL };
	char *const envp[] = { NULL };

	execve("/proc/self/exe", argv, envp);
	_exit(127);
}

/* The re-executed child: libcrypto initialised as by OpenSSH's ssh_libcrypto_init(). */
static int login_process(const char *service, const char *user, const char *code,
			 const char *sk_key, bool sk)
{
	struct login l;

	if (!login_set(&l, user, code, sk_key))
		return 2;
	OPENSSL_init_crypto(OPENSSL_INIT_ADD_ALL_CIPHERS | OPENSSL_INIT_ADD_ALL_DIGESTS |
			    OPENSSL_INIT_LOAD_CONFIG, NULL);
	login_child(service, &l, sk);
	return 2;
}

static int timed_login(struct series *s, const struct login *l, size_t i)
{
	struct rusage ru;
	double w0 = now_us();
	int status = 0;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		reexec_login(s, l);
	if (wait4(pid, &status, 0, &ru) != pid)
		return -1;
	s->wall[i] = now_us() - w0;
	s->cpu[i] = tv_us(ru.ru_utime) + tv_us(ru.ru_stime);
	s->faults[i] = (double)ru.ru_minflt + (double)ru.ru_majflt;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		s->failed++;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a;
	double y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(const double *v, size_t n)
{
	double *c = malloc(n * sizeof(*c));
	double m;

	if (c == NULL)
		abort();
	memcpy(c, v, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_double);
	m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
	free(c);
	return m;
}

static double median_over(const double *v, const double *floor, size_t n)
{
	double d[LOGINS_MAX];
	size_t i;

	for (i = 0; i < n; i++)
		d[i] = v[i] - floor[i];
	return median(d, n);
}

/* Up to LOGINS_MAX "user code key" lines; 0 (and a message) when one is not that. */
static size_t read_logins(const char *path, struct login *l)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t size = 0;
	size_t n = 0;
	char *save;
	char *user;
	char *code;
	char *sk;

	if (f == NULL)
		return 0;
	while (n < LOGINS_MAX && getline(&line, &size, f) > 0) {
		save = NULL;
		user = strtok_r(line, " \t\n", &save);
		code = strtok_r(NULL, " \t\n", &save);
		sk = strtok_r(NULL, " \t\n", &save);
		if (user == NULL || code == NULL || sk == NULL ||
		    strtok_r(NULL, " \t\n", &save) != NULL || !login_set(&l[n], user, code, sk)) {
			fprintf(stderr, "totp_login_bench: %s:%zu: not \"user code key\" with a user of at most %d bytes, a code of at most %zu and a key of at most %zu\n",
				path, n + 1, NAME_USER_MAX, sizeof(l->code) - 1, sizeof(l->sk) - 1);
			n = 0;
			break;
		}
		n++;
	}
	free(line);
	fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	static struct series s[SERVICES_MAX];
	static struct login logins[LOGINS_MAX];
	size_t nsvc = (size_t)argc - 2;
	size_t n;
	size_t i;
	size_t k;

	if (argc == 6 && (strcmp(argv[1], "--login") == 0 || strcmp(argv[1], "--login-sk") == 0))
		return login_process(argv[2], argv[3], argv[4], argv[5],
				     strcmp(argv[1], "--login-sk") == 0);
	if (argc < 4 || nsvc > SERVICES_MAX) {
		fprintf(stderr, "usage: totp_login_bench CODES FLOOR_SERVICE [sk:]SERVICE...\n");
		return 2;
	}
	n = read_logins(argv[1], logins);
	if (n == 0) {
		fprintf(stderr, "totp_login_bench: %s: no logins to time\n", argv[1]);
		return 1;
	}
	for (k = 0; k < nsvc; k++) {
		s[k].sk = strncmp(argv[k + 2], SK_PREFIX, strlen(SK_PREFIX)) == 0;
		s[k].service = argv[k + 2] + (s[k].sk ? strlen(SK_PREFIX) : 0);
	}
	for (i = 0; i < n; i++)
		for (k = 0; k < nsvc; k++)
			if (timed_login(&s[(i + k) % nsvc], &logins[i], i) < 0) {
				perror("totp_login_bench: fork/wait");
				return 1;
			}
	for (k = 0; k < nsvc; k++)
		printf("%s %zu %u %.1f %.1f %.1f %.1f %.0f\n", s[k].service, n, s[k].failed,
		       median(s[k].wall, n), median(s[k].cpu, n),
		       median_over(s[k].wall, s[0].wall, n), median_over(s[k].cpu, s[0].cpu, n),
		       median_over(s[k].faults, s[0].faults, n));
	return 0;
}

/*
 * totp_bench: the measuring half of bench/totp.
 *
 *   totp_bench setup DIR N   N users' records in DIR/totp (postern's store)
 *                            and the same users and secrets in DIR/users.oath
 *                            (pam_oath's HOTP/T30 users file)
 *   totp_bench run POSTERN_SERVICE OATH_SERVICE N
 *                            time pam_authenticate() through both services,
 *                            taking turns, for 10 users spread over the N
 *                            (the last one included, pam_oath's worst case),
 *                            each with codes for successive time steps so
 *                            every attempt is a fresh, valid code; prints per
 *                            service the median wall and CPU time in us
 *
 * Secrets are derived from the user number so both halves agree without a
 * file between them; this is a benchmark, not an enrolment.
 */
#include <errno.h>
#include <liboath/oath.h>
#include <openssl/evp.h>
#include <security/pam_appl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "totp_store.h"

#define SAMPLE_USERS 10
#define STEPS_BEFORE 8          /* codes from now-8 ... now+10: inside window=10 */
#define STEPS_AFTER 10
#define SAMPLES (SAMPLE_USERS * (STEPS_BEFORE + STEPS_AFTER + 1))

static void user_name(char *buf, size_t len, unsigned i)
{
	snprintf(buf, len, "ptbench%05u", i);
}

static void user_secret(unsigned i, unsigned char out[20])
{
	char seed[32];
	unsigned int n = 0;

	snprintf(seed, sizeof(seed), "postern-bench-%u", i);
	EVP_Digest(seed, strlen(seed), out, &n, EVP_sha1(), NULL);
}

static int setup(const char *dir, unsigned n)
{
	char path[4096];
	char user[32];
	struct totp_record r;
	struct pst_err e;
	FILE *oath;
	int storefd;
	unsigned i;
	unsigned j;

	snprintf(path, sizeof(path), "%s/totp", dir);
	storefd = totp_store_open_create(path, &e);
	if (storefd < 0) {
		fprintf(stderr, "totp_bench: %s\n", e.msg);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/users.oath", dir);
	oath = fopen(path, "we");
	if (oath == NULL)
		return 1;
	for (i = 0; i < n; i++) {
		totp_record_wipe(&r);
		r.alg = TOTP_SHA1;
		r.secret_len = 20;
		r.created = time(NULL);
		user_secret(i, r.secret);
		user_name(user, sizeof(user), i);
		if (totp_store_write(storefd, user, &r, &e) < 0) {
			fprintf(stderr, "totp_bench: %s\n", e.msg);
			return 1;
		}
		fprintf(oath, "HOTP/T30 %s - ", user);
		for (j = 0; j < 20; j++)
			fprintf(oath, "%02x", r.secret[j]);
		fputc('\n', oath);
	}
	close(storefd);
	return fclose(oath) == 0 ? 0 : 1;
}

struct conv_code {
	char code[16];
};

static int answer(int n, const struct pam_message **msg, struct pam_response **resp, void *data)
{
	struct conv_code *c = data;
	struct pam_response *r = calloc((size_t)n, sizeof(*r));
	int i;

	if (r == NULL)
		return PAM_BUF_ERR;
	for (i = 0; i < n; i++)
		if (msg[i]->msg_style == PAM_PROMPT_ECHO_OFF)
			r[i].resp = strdup(c->code);
	*resp = r;
	return PAM_SUCCESS;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a;
	double y = *(const double *)b;

	return (x > y) - (x < y);
}

static double clock_us(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

struct series {
	const char *service;
	pam_handle_t *h;
	double wall[SAMPLES];
	double cpu[SAMPLES];
	unsigned failed;
};

static int series_start(struct series *s, struct pam_conv *conv)
{
	if (pam_start(s->service, "ptbench00000", conv, &s->h) != PAM_SUCCESS)
		return -1;
	pam_putenv(s->h, "SSH_AUTH_INFO_0=publickey ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJArrxC6M9Gjp8UbSL8jRkz3OuKi+tjeXuK/l93STtDT");
	pam_putenv(s->h, "SSH_CONNECTION=192.0.2.7 50122 192.0.2.1 22");
	return 0;
}

static void timed_login(struct series *s, const char *user, size_t i)
{
	double w0;
	double c0;

	pam_set_item(s->h, PAM_USER, user);
	w0 = clock_us(CLOCK_MONOTONIC);
	c0 = clock_us(CLOCK_PROCESS_CPUTIME_ID);
	if (pam_authenticate(s->h, 0) != PAM_SUCCESS)
		s->failed++;
	s->cpu[i] = clock_us(CLOCK_PROCESS_CPUTIME_ID) - c0;
	s->wall[i] = clock_us(CLOCK_MONOTONIC) - w0;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(v[0]), cmp_double);
	return v[n / 2];
}

/* The two modules take turns, login by login, so both see the same load. */
static int run(const char *postern_service, const char *oath_service, unsigned n)
{
	struct series s[2] = { { .service = postern_service }, { .service = oath_service } };
	struct conv_code c;
	struct pam_conv conv = { answer, &c };
	unsigned char secret[20];
	char user[32];
	size_t count = 0;
	time_t start = time(NULL);
	int step;
	unsigned u;
	unsigned i;
	int m;

	oath_init();
	if (series_start(&s[0], &conv) < 0 || series_start(&s[1], &conv) < 0)
		return 1;
	for (step = -STEPS_BEFORE; step <= STEPS_AFTER; step++) {
		for (i = 0; i < SAMPLE_USERS; i++, count++) {
			u = n <= SAMPLE_USERS ? i : (i + 1) * (n / SAMPLE_USERS) - 1;
			user_name(user, sizeof(user), u);
			user_secret(u, secret);
			oath_totp_generate((const char *)secret, sizeof(secret), start + step * 30, 30,
					   0, 6, c.code);
			for (m = 0; m < 2; m++)
				timed_login(&s[(count + (size_t)m) % 2], user, count);
		}
	}
	for (m = 0; m < 2; m++) {
		pam_end(s[m].h, PAM_SUCCESS);
		printf("%.1f %.1f %zu %u\n", median(s[m].wall, count), median(s[m].cpu, count),
		       count, s[m].failed);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "setup") == 0)
		return setup(argv[2], (unsigned)atoi(argv[3]));
	if (argc == 5 && strcmp(argv[1], "run") == 0)
		return run(argv[2], argv[3], (unsigned)atoi(argv[4]));
	fprintf(stderr, "usage: totp_bench setup DIR N | run POSTERN_SERVICE OATH_SERVICE N\n");
	return 2;
}

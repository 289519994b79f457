// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "unit.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "metrics.h"

static char *render(void)
{
	struct metrics_buf m;

	assert_int_equal(metrics_begin(&m), 0);
	metrics_family(&m, "ipcwatch_shm_bytes", "gauge", "Bytes in segments");
	metrics_sample(&m, 16777216, "ipcns", "4026531839", NULL);
	metrics_family(&m, "ipcwatch_policy_decisions_total", "counter",
		       "Decisions");
	metrics_sample(&m, 3, "rule", "db \"main\"\\x", "action", "denied",
		       NULL);
	metrics_family(&m, "ipcwatch_info", "gauge", "Info");
	metrics_sample(&m, 0.5, NULL);
	assert_int_equal(metrics_end(&m), 0);
	return m.text;
}

static void metrics_text_format(void **state)
{
	char *text = render();

	(void)state;
	assert_string_equal(text,
		"# HELP ipcwatch_shm_bytes Bytes in segments\n"
		"# TYPE ipcwatch_shm_bytes gauge\n"
		"ipcwatch_shm_bytes{ipcns=\"4026531839\"} 16777216\n"
		"# HELP ipcwatch_policy_decisions_total Decisions\n"
		"# TYPE ipcwatch_policy_decisions_total counter\n"
		"ipcwatch_policy_decisions_total{rule=\"db \\\"main\\\"\\\\x\","
		"action=\"denied\"} 3\n"
		"# HELP ipcwatch_info Info\n"
		"# TYPE ipcwatch_info gauge\n"
		"ipcwatch_info 0.5\n");
	free(text);
}

static void metrics_file_atomic(void **state)
{
	char dir[] = "/tmp/ipcwatch-metrics-XXXXXX", path[256], err[256];
	char buf[64] = "";
	struct stat st;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/ipcwatch.prom", dir);
	assert_int_equal(metrics_write_file(path, "a 1\n", err, sizeof(err)), 0);
	assert_int_equal(metrics_write_file(path, "b 2\n", err, sizeof(err)), 0);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "b 2\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	unlink(path);
	rmdir(dir);
	/* a directory that does not exist: an error naming the path */
	assert_int_not_equal(metrics_write_file("/nonexistent/x.prom", "a\n",
						err, sizeof(err)), 0);
	assert_non_null(strstr(err, "/nonexistent/x.prom"));
}

static void metrics_file_refuses_symlink(void **state)
{
	char dir[] = "/tmp/ipcwatch-metrics-XXXXXX", path[256], target[256];
	char err[256], want[300], buf[64] = "";
	struct stat st;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/ipcwatch.prom", dir);
	snprintf(target, sizeof(target), "%s/elsewhere", dir);
	f = fopen(target, "w");
	assert_non_null(f);
	fputs("kept\n", f);
	fclose(f);
	assert_int_equal(symlink(target, path), 0);
	snprintf(want, sizeof(want), "%s: a symbolic link, not replaced", path);
	assert_int_equal(metrics_file_check(path, err, sizeof(err)), -ELOOP);
	assert_string_equal(err, want);
	assert_int_equal(metrics_write_file(path, "a 1\n", err, sizeof(err)),
			 -ELOOP);
	assert_string_equal(err, want);
	/* the link and what it points to are as they were */
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	f = fopen(target, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "kept\n");
	unlink(path);
	/* a directory in its place */
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(want, sizeof(want), "%s: not a regular file", path);
	assert_int_equal(metrics_file_check(path, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, want);
	rmdir(path);
	unlink(target);
	rmdir(dir);
}

static void metrics_listen_spec(void **state)
{
	char addr[64];
	unsigned int port;

	(void)state;
	assert_int_equal(metrics_parse_listen(":9477", addr, sizeof(addr),
					      &port), 0);
	assert_string_equal(addr, "127.0.0.1");
	assert_int_equal(port, 9477);
	assert_int_equal(metrics_parse_listen("127.0.0.2:80", addr,
					      sizeof(addr), &port), 0);
	assert_string_equal(addr, "127.0.0.2");
	assert_int_equal(metrics_parse_listen("9477", addr, sizeof(addr),
					      &port), -1);
	assert_int_equal(metrics_parse_listen(":99999", addr, sizeof(addr),
					      &port), -1);
	assert_int_equal(metrics_parse_listen(":x", addr, sizeof(addr),
					      &port), -1);
}

/* GET a path from the loopback server; returns the whole response. */
static char *http_get(unsigned int port, const char *path)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons((uint16_t)port) };
	static char resp[8192];
	char req[256];
	size_t len = 0;
	ssize_t n;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr);
	assert_int_equal(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	snprintf(req, sizeof(req), "GET %s HTTP/1.0\r\n\r\n", path);
	assert_true(write(fd, req, strlen(req)) > 0);
	while ((n = read(fd, resp + len, sizeof(resp) - 1 - len)) > 0)
		len += (size_t)n;
	resp[len] = '\0';
	close(fd);
	return resp;
}

static void metrics_http_serves_last_text(void **state)
{
	struct metrics_server *s;
	char err[256], *text = render(), *resp;

	(void)state;
	s = metrics_listen("127.0.0.1:0", err, sizeof(err));
	assert_non_null(s);
	assert_true(metrics_port(s) > 0);
	metrics_publish(s, text);
	resp = http_get(metrics_port(s), "/metrics");
	assert_non_null(strstr(resp, "HTTP/1.0 200 OK") ?
			strstr(resp, "HTTP/1.0 200 OK") :
			strstr(resp, "HTTP/1.1 200 OK"));
	assert_non_null(strstr(resp, "Content-Type: text/plain; version=0.0.4"));
	assert_non_null(strstr(resp, "ipcwatch_shm_bytes{ipcns=\"4026531839\"}"
				     " 16777216\n"));
	resp = http_get(metrics_port(s), "/other");
	assert_non_null(strstr(resp, " 404 "));
	metrics_stop(s);
	free(text);
	assert_null(metrics_listen("10.0.0.300:80", err, sizeof(err)));
	assert_non_null(strstr(err, "10.0.0.300:80"));
}

/* The largest namespaces get series of their own; ties by position. */
static void metrics_namespace_bound(void **state)
{
	const uint64_t bytes[] = { 10, 300, 20, 300, 0 };
	size_t order[5];

	(void)state;
	assert_int_equal(metrics_ns_order(bytes, 5, 2, order), 2);
	assert_int_equal(order[0], 1);
	assert_int_equal(order[1], 3);
	assert_int_equal(order[2], 2);
	assert_int_equal(order[3], 0);
	assert_int_equal(order[4], 4);
	assert_int_equal(metrics_ns_order(bytes, 5, 64, order), 5);
	assert_int_equal(metrics_ns_order(bytes, 0, 64, order), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(metrics_text_format),
		cmocka_unit_test(metrics_file_atomic),
		cmocka_unit_test(metrics_file_refuses_symlink),
		cmocka_unit_test(metrics_listen_spec),
		cmocka_unit_test(metrics_http_serves_last_text),
		cmocka_unit_test(metrics_namespace_bound),
	};

	return cmocka_run_group_tests_name("metrics", tests, NULL, NULL);
}

/*
 * shaper_readback: run in a guest whose kernel has netdevsim and the
 * net-shaper family (kbench vm run --exec). It makes a netdevsim device,
 * has the guest's kbench set, group and delete shapers on it, and after
 * each step reads the kernel's shaper hierarchy back with netlink requests
 * of its own, written from the family's spec (net_shaper.yaml, 6.13) and
 * sharing no code with kbench's client. One line per shaper:
 *
 *   <phase> handle=queue:1 parent=netdev:0 metric=bps bw-min=1000 ...
 *
 * netdevsim's shaper ops accept everything and keep nothing: what a dump
 * shows is what the net-shaper core stored from kbench's requests.
 */
#include <dirent.h>
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* From the spec: Debian 12's headers have no linux/net_shaper.h. */
enum { SHAPER_CMD_GET = 1 };
enum { SHAPER_A_HANDLE = 1, SHAPER_A_METRIC, SHAPER_A_BW_MIN, SHAPER_A_BW_MAX, SHAPER_A_BURST,
       SHAPER_A_PRIORITY, SHAPER_A_WEIGHT, SHAPER_A_IFINDEX, SHAPER_A_PARENT };
enum { HANDLE_A_SCOPE = 1, HANDLE_A_ID };

#define NSIM_ID "73"
#define MAX_REPLIES 4096

static const char *const scopes[] = { "unspec", "netdev", "queue", "node" };

static char buf[1 << 16];

static void die(const char *what)
{
	printf("error %s: %s\n", what, strerror(errno));
	exit(1);
}

static struct nlattr *put_attr(struct nlmsghdr *h, uint16_t type, const void *data, uint16_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)h + NLMSG_ALIGN(h->nlmsg_len));

	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy((char *)a + NLA_HDRLEN, data, len);
	h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + NLA_ALIGN(a->nla_len);
	return a;
}

static void send_request(int fd, uint16_t family, uint8_t cmd, uint16_t flags, uint16_t attr,
			 const void *data, uint16_t len)
{
	static char req[256];
	struct nlmsghdr *h = (struct nlmsghdr *)req;
	struct genlmsghdr *g = NLMSG_DATA(h);

	memset(req, 0, sizeof(req));
	h->nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	h->nlmsg_type = family;
	h->nlmsg_flags = NLM_F_REQUEST | flags;
	h->nlmsg_seq = 1;
	g->cmd = cmd;
	g->version = 1;
	put_attr(h, attr, data, len);
	if (send(fd, req, h->nlmsg_len, 0) < 0)
		die("send");
}

static uint64_t attr_uint(const struct nlattr *a)
{
	uint32_t v32;
	uint64_t v64;

	if (a->nla_len - NLA_HDRLEN == 8) {
		memcpy(&v64, (const char *)a + NLA_HDRLEN, 8);
		return v64;
	}
	memcpy(&v32, (const char *)a + NLA_HDRLEN, 4);
	return v32;
}

#define FOR_ATTRS(a, start, len)                                                          \
	for (struct nlattr *a = (struct nlattr *)(start); (char *)a + NLA_HDRLEN <= (char *)(start) + (len) && \
	     a->nla_len >= NLA_HDRLEN && (char *)a + a->nla_len <= (char *)(start) + (len); \
	     a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len)))

static void print_handle(const char *name, const struct nlattr *nest)
{
	uint32_t scope = 0, id = 0;

	FOR_ATTRS(a, (const char *)nest + NLA_HDRLEN, nest->nla_len - NLA_HDRLEN) {
		if ((a->nla_type & NLA_TYPE_MASK) == HANDLE_A_SCOPE)
			scope = (uint32_t)attr_uint(a);
		else if ((a->nla_type & NLA_TYPE_MASK) == HANDLE_A_ID)
			id = (uint32_t)attr_uint(a);
	}
	printf(" %s=%s:%u", name, scope < 4 ? scopes[scope] : "?", id);
}

static void print_shaper(const char *phase, unsigned ifindex, struct genlmsghdr *g, int len)
{
	static const char *const names[] = { [SHAPER_A_BW_MIN] = "bw-min", [SHAPER_A_BW_MAX] = "bw-max",
					     [SHAPER_A_BURST] = "burst", [SHAPER_A_PRIORITY] = "priority",
					     [SHAPER_A_WEIGHT] = "weight" };

	printf("%s", phase);
	/* Attributes in a fixed order, whatever order the kernel sent. */
	for (int want = SHAPER_A_HANDLE; want <= SHAPER_A_PARENT; want++)
		FOR_ATTRS(a, (char *)g + GENL_HDRLEN, len) {
			int type = a->nla_type & NLA_TYPE_MASK;

			if (type != want)
				continue;
			if (type == SHAPER_A_HANDLE || type == SHAPER_A_PARENT)
				print_handle(type == SHAPER_A_HANDLE ? "handle" : "parent", a);
			else if (type == SHAPER_A_METRIC)
				printf(" metric=%s", attr_uint(a) ? "pps" : "bps");
			else if (type == SHAPER_A_IFINDEX)
				printf(" ifindex=%s", attr_uint(a) == ifindex ? "ok" : "WRONG");
			else
				printf(" %s=%llu", names[type], (unsigned long long)attr_uint(a));
		}
	putchar('\n');
}

/*
 * Reads replies up to NLMSG_DONE or the ACK: with family set, takes the
 * family's id from them; else prints each as a shaper.
 */
static void read_replies(int fd, const char *phase, unsigned ifindex, uint16_t *family)
{
	for (int n = 0; n < MAX_REPLIES; n++) {
		ssize_t got = recv(fd, buf, sizeof(buf), 0);

		if (got < 0)
			die("recv");
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)got);
		     h = NLMSG_NEXT(h, got)) {
			struct genlmsghdr *g = NLMSG_DATA(h);
			int len = (int)h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);

			if (h->nlmsg_type == NLMSG_DONE)
				return;
			if (h->nlmsg_type == NLMSG_ERROR) {
				int err = ((struct nlmsgerr *)NLMSG_DATA(h))->error;

				if (!err)
					return;
				errno = -err;
				die(phase);
			}
			if (family) {
				FOR_ATTRS(a, (char *)g + GENL_HDRLEN, len)
					if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID)
						*family = (uint16_t)attr_uint(a);
				continue;
			}
			print_shaper(phase, ifindex, g, len);
		}
	}
	errno = E2BIG;
	die(phase);
}

static uint16_t family_id(int fd)
{
	static const char name[] = "net-shaper";
	uint16_t id = 0;

	send_request(fd, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, NLM_F_ACK, CTRL_ATTR_FAMILY_NAME, name,
		     sizeof(name));
	read_replies(fd, "family", 0, &id);
	if (!id) {
		errno = ENOENT;
		die("family net-shaper");
	}
	return id;
}

static void dump(int fd, uint16_t family, const char *phase, unsigned ifindex)
{
	uint32_t ifi = ifindex;

	send_request(fd, family, SHAPER_CMD_GET, NLM_F_DUMP, SHAPER_A_IFINDEX, &ifi, sizeof(ifi));
	read_replies(fd, phase, ifindex, NULL);
	printf("%s done\n", phase);
}

static void kbench(char *const argv[])
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		/* kbench's own messages stay apart from the lines this program prints. */
		dup2(STDERR_FILENO, STDOUT_FILENO);
		execvp("kbench", argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid");
	printf("kbench %s: exit %d\n", argv[2], WIFEXITED(status) ? WEXITSTATUS(status) : 128);
}

/* The netdevsim device's one netdev: its name, once the kernel has made it. */
static void make_device(char *name, size_t size)
{
	FILE *f = fopen("/sys/bus/netdevsim/new_device", "w");
	struct timespec tick = { 0, 50 * 1000 * 1000 };

	if (!f || fputs(NSIM_ID " 1 4", f) == EOF || fclose(f))
		die("/sys/bus/netdevsim/new_device");
	for (int tries = 0; tries < 1200; tries++, nanosleep(&tick, NULL)) {
		DIR *d = opendir("/sys/bus/netdevsim/devices/netdevsim" NSIM_ID "/net");
		struct dirent *e;

		while (d && (e = readdir(d)))
			if (e->d_name[0] != '.' && strlen(e->d_name) < size) {
				memcpy(name, e->d_name, strlen(e->d_name) + 1);
				closedir(d);
				return;
			}
		if (d)
			closedir(d);
	}
	errno = ETIMEDOUT;
	die("netdevsim" NSIM_ID "'s netdev");
}

int main(void)
{
	char dev[IF_NAMESIZE + 1];
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	unsigned ifindex;
	uint16_t family;
	int fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	make_device(dev, sizeof(dev));
	ifindex = if_nametoindex(dev);
	if (!ifindex)
		die(dev);
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		die("netlink socket");
	family = family_id(fd);
	dump(fd, family, "before", ifindex);
	kbench((char *[]){ "kbench", "shaper", "set", dev, "scope=queue", "id=1", "metric=bps",
			   "bw-min=1000", "bw-max=5000000", "burst=65536", "priority=2",
			   "weight=3", NULL });
	kbench((char *[]){ "kbench", "shaper", "group", dev, "metric=bps", "bw-max=6000000000",
			   "leaf=queue:2:4", "leaf=queue:3:5", NULL });
	dump(fd, family, "set", ifindex);
	kbench((char *[]){ "kbench", "shaper", "delete", dev, "scope=queue", "id=1", NULL });
	dump(fd, family, "deleted", ifindex);
	close(fd);
	return 0;
}

/*
 * The floor: the least a client can do to read streamed answers, timed the way a benchmark must
 * time them. One thread, epoll, raw sockets, no code of reprise's. It opens one connection per
 * stream before it starts, then keeps CONCURRENCY requests in flight until REQUESTS were sent,
 * each the next one's on its connection as soon as the answer ended.
 *
 * It stamps (CLOCK_MONOTONIC) each request just before its write() and each read as it returns,
 * and gives every SSE event that read completed the read's stamp. It logs
 *   S <request-id> <ns>          the request is about to be written
 *   E <request-id> <k> <ns>      content event k (0-based) was read
 * so that its TTFT is E 0 - S and its chunk gaps E k+1 - E k, as a benchmark would report them.
 * Only the content events count (`data: {`): `data: [DONE]` does not.
 *
 * Usage: raw_client --port P --body-file F --log FILE [--concurrency 64] [--requests 1280]
 *          [--path /v1/chat/completions]
 * Build: cc -O2 -o raw_client raw_client.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef struct {
  int fd;
  char id[64];
  char *buf;
  size_t len, cap;
  size_t scanned; /* bytes of `buf` already searched for events */
  int events;
  int busy;
} Stream;

static char *logbuf;
static size_t log_len, log_cap;

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The log: one mapping reserved at start, never moved (as the server's; see stream_server.c). */
#define LOG_MAX ((size_t)4 << 30)

static void logline(const char *text, size_t n) {
  if (!logbuf) {
    logbuf = mmap(NULL, LOG_MAX, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (logbuf == MAP_FAILED) {
      perror("mmap");
      exit(1);
    }
    madvise(logbuf, LOG_MAX, MADV_NOHUGEPAGE);
    log_cap = LOG_MAX;
  }
  if (log_len + n > log_cap) {
    fprintf(stderr, "raw_client: log over %zu bytes\n", LOG_MAX);
    exit(1);
  }
  memcpy(logbuf + log_len, text, n);
  log_len += n;
}

int main(int argc, char **argv) {
  const char *log_path = NULL, *body_path = NULL, *path = "/v1/chat/completions";
  int port = 0, concurrency = 64, requests = 1280;
  for (int a = 1; a + 1 < argc; a += 2) {
    if (!strcmp(argv[a], "--port")) port = atoi(argv[a + 1]);
    else if (!strcmp(argv[a], "--body-file")) body_path = argv[a + 1];
    else if (!strcmp(argv[a], "--log")) log_path = argv[a + 1];
    else if (!strcmp(argv[a], "--concurrency")) concurrency = atoi(argv[a + 1]);
    else if (!strcmp(argv[a], "--requests")) requests = atoi(argv[a + 1]);
    else if (!strcmp(argv[a], "--path")) path = argv[a + 1];
    else {
      fprintf(stderr, "unknown option %s\n", argv[a]);
      return 2;
    }
  }
  if (!port || !body_path || !log_path || concurrency < 1 || requests < 1) {
    fprintf(stderr, "usage: raw_client --port P --body-file F --log FILE [--concurrency N] "
                    "[--requests N] [--path P]\n");
    return 2;
  }
  FILE *bf = fopen(body_path, "rb");
  if (!bf) {
    perror(body_path);
    return 1;
  }
  static char body[1 << 20];
  size_t body_len = fread(body, 1, sizeof body, bf);
  fclose(bf);
  if (concurrency > requests) concurrency = requests;

  Stream *s = calloc((size_t)concurrency, sizeof(Stream));
  int epfd = epoll_create1(0);
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int one = 1;
  /* Every connection is open before the first request: none is timed with its connect. */
  for (int i = 0; i < concurrency; i++) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
      perror("connect");
      return 1;
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    s[i].fd = fd;
    struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
    epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
  }

  int sent = 0, done = 0, errors = 0;
  char req[(1 << 20) + 1024];
  char line[160];
  /* Sends the next request on stream i. */
#define SEND(i)                                                                                  \
  do {                                                                                           \
    Stream *st = &s[i];                                                                          \
    snprintf(st->id, sizeof st->id, "raw-%d", sent++);                                           \
    int hl = snprintf(req, sizeof req,                                                           \
                      "POST %s HTTP/1.1\r\nhost: 127.0.0.1:%d\r\ncontent-type: application/json\r\n" \
                      "user-agent: raw\r\nx-request-id: %s\r\ncontent-length: %zu\r\n\r\n",      \
                      path, port, st->id, body_len);                                             \
    memcpy(req + hl, body, body_len);                                                            \
    st->len = st->scanned = 0;                                                                   \
    st->events = 0;                                                                              \
    st->busy = 1;                                                                                \
    int ln = snprintf(line, sizeof line, "S %s %lld\n", st->id, (long long)now_ns());            \
    logline(line, (size_t)ln);                                                                   \
    size_t total = (size_t)hl + body_len, off = 0;                                               \
    while (off < total) {                                                                        \
      ssize_t w = write(st->fd, req + off, total - off);                                         \
      if (w <= 0) {                                                                              \
        perror("write");                                                                         \
        return 1;                                                                                \
      }                                                                                          \
      off += (size_t)w;                                                                          \
    }                                                                                            \
  } while (0)

  for (int i = 0; i < concurrency; i++) SEND(i);
  struct epoll_event events[256];
  static char rbuf[1 << 16];
  int64_t started = now_ns();
  while (done < requests) {
    int n = epoll_wait(epfd, events, 256, 30000);
    if (n == 0) {
      fprintf(stderr, "raw_client: no answer for 30 s\n");
      return 1;
    }
    if (n < 0) {
      if (errno == EINTR) continue;
      perror("epoll_wait");
      return 1;
    }
    for (int e = 0; e < n; e++) {
      int i = (int)events[e].data.u32;
      Stream *st = &s[i];
      ssize_t r = read(st->fd, rbuf, sizeof rbuf);
      int64_t at = now_ns();
      if (r <= 0) {
        fprintf(stderr, "raw_client: the server closed a connection\n");
        return 1;
      }
      if (st->len + (size_t)r > st->cap) {
        st->cap = (st->len + (size_t)r) * 2;
        st->buf = realloc(st->buf, st->cap);
      }
      memcpy(st->buf + st->len, rbuf, (size_t)r);
      st->len += (size_t)r;
      /* Events whose start this read completed take its stamp. */
      size_t from = st->scanned;
      for (;;) {
        char *p = memmem(st->buf + from, st->len - from, "data: ", 6);
        if (!p) break;
        size_t at_off = (size_t)(p - st->buf);
        if (at_off + 7 > st->len) break;
        if (p[6] == '{') {
          int ln = snprintf(line, sizeof line, "E %s %d %lld\n", st->id, st->events++,
                            (long long)at);
          logline(line, (size_t)ln);
        }
        from = at_off + 6;
      }
      st->scanned = from;
      /* The answer ends with the chunked terminator after [DONE]. */
      char *fin = memmem(st->buf, st->len, "data: [DONE]", 12);
      if (fin && memmem(fin, st->len - (size_t)(fin - st->buf), "\r\n0\r\n\r\n", 7)) {
        st->busy = 0;
        done++;
        if (st->events == 0) errors++;
        if (sent < requests) SEND(i);
      }
    }
  }
  double secs = (double)(now_ns() - started) / 1e9;
  FILE *f = fopen(log_path, "w");
  if (!f) {
    perror(log_path);
    return 1;
  }
  fwrite(logbuf, 1, log_len, f);
  fclose(f);
  printf("{\"requests\":%d,\"errors\":%d,\"seconds\":%.3f}\n", done, errors, secs);
  return 0;
}

/*
 * An independent streaming server for measuring a client's timing error: one thread, epoll, no
 * code of reprise's. It answers every POST with an OpenAI-style chat completion stream (chunked
 * SSE, one token per chunk, one chunk per write) on a fixed schedule from the instant the whole
 * request was read: the first token TTFT ms later, then one every GAP ms, TOKENS in all.
 *
 * It logs, on CLOCK_MONOTONIC, the instant it had the whole request and the instant just before
 * each token's write(), keyed by the request's X-Request-ID:
 *   A <request-id> <ns>          the request was read in full
 *   T <request-id> <k> <ns>      token k (0-based) is about to be written
 * A client's TTFT error is its reported TTFT minus (T 0 - A); its chunk-gap error is each
 * reported gap minus the gap between the two writes. Only differences of this one clock are used:
 * no clock is compared with another.
 *
 * Usage: stream_server --log FILE [--port 0] [--ttft-ms 50] [--gap-ms 5] [--tokens 64]
 * Prints "port N" on stdout once listening; SIGTERM or SIGINT writes the log and exits.
 *
 * Build: cc -O2 -o stream_server stream_server.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define MAX_ID 127

typedef struct {
  int fd;
  int open;
  char *in;          /* bytes read, not yet a whole request */
  size_t in_len, in_cap;
  char *out;         /* bytes a write could not take yet */
  size_t out_len, out_cap;
  char id[MAX_ID + 1];
  int streaming;     /* an answer is being sent */
  int next_token;
  int64_t arrived;   /* ns */
  uint32_t gen;      /* bumped per answer: stale timer entries are skipped */
} Conn;

typedef struct {
  int64_t due;
  int conn;
  uint32_t gen;
} Due;

static Conn *conns;
static int conns_cap;
static Due *heap;
static int heap_len, heap_cap;
static char *logbuf;
static size_t log_len, log_cap;
static volatile sig_atomic_t stopping;
static int64_t ttft_ns = 50000000, gap_ns = 5000000;
static int tokens = 64;

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void *grow(void *p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return p;
  size_t c = *cap ? *cap : 64;
  while (c < need) c *= 2;
  p = realloc(p, c * elem);
  if (!p) {
    perror("realloc");
    exit(1);
  }
  *cap = c;
  return p;
}

/*
 * The log lives in one mapping reserved at start and never moved: a buffer grown by realloc
 * stalled the server for milliseconds each time it doubled (16 to 32 MB: copied, its new pages
 * touched), between a token's logged time and its write, at the same point of every run.
 * Pages are taken as the log reaches them, one fault per 4 KiB; a token's line is written after
 * the token.
 */
#define LOG_MAX ((size_t)4 << 30)

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...) {
  if (!logbuf) {
    logbuf = mmap(NULL, LOG_MAX, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (logbuf == MAP_FAILED) {
      perror("mmap");
      exit(1);
    }
    /* Small pages: a huge page's first touch clears 2 MB at once, a stall of a millisecond. */
    madvise(logbuf, LOG_MAX, MADV_NOHUGEPAGE);
    log_cap = LOG_MAX;
  }
  if (log_len + 256 > log_cap) {
    fprintf(stderr, "stream_server: log over %zu bytes\n", LOG_MAX);
    exit(1);
  }
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(logbuf + log_len, 256, fmt, ap);
  va_end(ap);
  if (n > 0) log_len += (size_t)(n < 256 ? n : 255);
}

static void heap_push(Due d) {
  size_t cap = (size_t)heap_cap;
  heap = grow(heap, &cap, (size_t)heap_len + 1, sizeof(Due));
  heap_cap = (int)cap;
  int i = heap_len++;
  while (i > 0) {
    int p = (i - 1) / 2;
    if (heap[p].due <= d.due) break;
    heap[i] = heap[p];
    i = p;
  }
  heap[i] = d;
}

static Due heap_pop(void) {
  Due top = heap[0];
  Due last = heap[--heap_len];
  int i = 0;
  for (;;) {
    int l = 2 * i + 1, r = l + 1, m = i;
    Due mv = last;
    if (l < heap_len && heap[l].due < mv.due) m = l, mv = heap[l];
    if (r < heap_len && heap[r].due < mv.due) m = r, mv = heap[r];
    if (m == i) break;
    heap[i] = heap[m];
    i = m;
  }
  if (heap_len > 0) heap[i] = last;
  return top;
}

static void arm(int tfd) {
  struct itimerspec its;
  memset(&its, 0, sizeof its);
  if (heap_len > 0) {
    int64_t due = heap[0].due;
    if (due <= 0) due = 1;
    its.it_value.tv_sec = due / 1000000000;
    its.it_value.tv_nsec = due % 1000000000;
  }
  timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void close_conn(int epfd, int i) {
  Conn *c = &conns[i];
  if (!c->open) return;
  epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
  close(c->fd);
  c->open = 0;
  c->streaming = 0;
  c->gen++;
  c->in_len = c->out_len = 0;
}

/* Writes `buf`, keeping what the socket does not take for EPOLLOUT. */
static void send_bytes(int epfd, int i, const char *buf, size_t len) {
  Conn *c = &conns[i];
  size_t done = 0;
  if (c->out_len == 0) {
    ssize_t n = write(c->fd, buf, len);
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
      close_conn(epfd, i);
      return;
    }
    if (n > 0) done = (size_t)n;
  }
  if (done < len) {
    c->out = grow(c->out, &c->out_cap, c->out_len + len - done, 1);
    memcpy(c->out + c->out_len, buf + done, len - done);
    c->out_len += len - done;
    struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT, .data.u32 = (uint32_t)i};
    epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev);
  }
}

static const char HEAD[] =
    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n"
    "transfer-encoding: chunked\r\n\r\n";

/* Token k of connection i's answer, written now; the last one carries the stream's end. */
static void write_token(int epfd, int i) {
  Conn *c = &conns[i];
  int k = c->next_token++;
  char event[512];
  int n = snprintf(event, sizeof event,
                   "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\","
                   "\"created\":0,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":"
                   "{\"content\":\"t%d \"},\"finish_reason\":null}]}\n\n",
                   k);
  char chunk[700];
  int len = snprintf(chunk, sizeof chunk, "%x\r\n%s\r\n", n, event);
  int last = c->next_token >= tokens;
  if (last) {
    static const char done_event[] = "data: [DONE]\n\n";
    len += snprintf(chunk + len, sizeof chunk - (size_t)len, "%zx\r\n%s\r\n0\r\n\r\n",
                    sizeof done_event - 1, done_event);
    c->streaming = 0;
  }
  /* Stamped right before the write and logged after it: nothing the log does falls between. */
  int64_t at = now_ns();
  send_bytes(epfd, i, chunk, (size_t)len);
  logf_("T %s %d %lld\n", c->id, k, (long long)at);
}

/* A whole request is in `in`: its answer is scheduled; returns the bytes it took, 0 if partial. */
static size_t take_request(int epfd, int i) {
  Conn *c = &conns[i];
  char *end = memmem(c->in, c->in_len, "\r\n\r\n", 4);
  if (!end) return 0;
  size_t head_len = (size_t)(end - c->in) + 4;
  size_t body = 0;
  c->id[0] = 0;
  for (char *line = c->in; line < end;) {
    char *eol = memmem(line, (size_t)(end + 2 - line), "\r\n", 2);
    if (!eol) break;
    size_t ll = (size_t)(eol - line);
    if (ll > 15 && strncasecmp(line, "content-length:", 15) == 0) {
      body = strtoul(line + 15, NULL, 10);
    } else if (ll > 13 && strncasecmp(line, "x-request-id:", 13) == 0) {
      char *v = line + 13;
      while (*v == ' ') v++;
      size_t vl = (size_t)(eol - v);
      if (vl > MAX_ID) vl = MAX_ID;
      memcpy(c->id, v, vl);
      c->id[vl] = 0;
    }
    line = eol + 2;
  }
  if (c->in_len < head_len + body) return 0;
  c->arrived = now_ns();
  if (!c->id[0]) snprintf(c->id, sizeof c->id, "none-%d-%u", i, c->gen);
  logf_("A %s %lld\n", c->id, (long long)c->arrived);
  c->streaming = 1;
  c->next_token = 0;
  c->gen++;
  send_bytes(epfd, i, HEAD, sizeof HEAD - 1);
  for (int k = 0; k < tokens; k++) {
    heap_push((Due){.due = c->arrived + ttft_ns + (int64_t)k * gap_ns, .conn = i, .gen = c->gen});
  }
  return head_len + body;
}

static void on_stop(int sig) {
  (void)sig;
  stopping = 1;
}

int main(int argc, char **argv) {
  const char *log_path = NULL;
  int port = 0;
  for (int a = 1; a + 1 < argc; a += 2) {
    if (!strcmp(argv[a], "--log")) log_path = argv[a + 1];
    else if (!strcmp(argv[a], "--port")) port = atoi(argv[a + 1]);
    else if (!strcmp(argv[a], "--ttft-ms")) ttft_ns = (int64_t)(atof(argv[a + 1]) * 1e6);
    else if (!strcmp(argv[a], "--gap-ms")) gap_ns = (int64_t)(atof(argv[a + 1]) * 1e6);
    else if (!strcmp(argv[a], "--tokens")) tokens = atoi(argv[a + 1]);
    else {
      fprintf(stderr, "unknown option %s\n", argv[a]);
      return 2;
    }
  }
  if (!log_path || tokens < 1) {
    fprintf(stderr, "usage: stream_server --log FILE [--port 0] [--ttft-ms 50] [--gap-ms 5] "
                    "[--tokens 64]\n");
    return 2;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);

  int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  int one = 1;
  setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(lfd, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(lfd, 4096) < 0) {
    perror("listen");
    return 1;
  }
  socklen_t alen = sizeof addr;
  getsockname(lfd, (struct sockaddr *)&addr, &alen);
  printf("port %d\n", ntohs(addr.sin_port));
  fflush(stdout);

  int epfd = epoll_create1(0);
  int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
  /* data.u32: a connection's index; these two are marked apart. */
  const uint32_t LISTEN = 0xfffffffe, TIMER = 0xffffffff;
  struct epoll_event ev = {.events = EPOLLIN, .data.u32 = LISTEN};
  epoll_ctl(epfd, EPOLL_CTL_ADD, lfd, &ev);
  ev.data.u32 = TIMER;
  epoll_ctl(epfd, EPOLL_CTL_ADD, tfd, &ev);

  struct epoll_event events[256];
  char rbuf[65536];
  while (!stopping) {
    int n = epoll_wait(epfd, events, 256, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      perror("epoll_wait");
      break;
    }
    for (int e = 0; e < n; e++) {
      uint32_t tag = events[e].data.u32;
      if (tag == LISTEN) {
        for (;;) {
          int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK);
          if (fd < 0) break;
          setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          if (fd >= conns_cap) {
            int cap = conns_cap ? conns_cap : 1024;
            while (cap <= fd) cap *= 2;
            conns = realloc(conns, (size_t)cap * sizeof(Conn));
            memset(conns + conns_cap, 0, (size_t)(cap - conns_cap) * sizeof(Conn));
            conns_cap = cap;
          }
          Conn *c = &conns[fd];
          c->fd = fd;
          c->open = 1;
          c->in_len = c->out_len = 0;
          c->streaming = 0;
          struct epoll_event cev = {.events = EPOLLIN, .data.u32 = (uint32_t)fd};
          epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &cev);
        }
      } else if (tag == TIMER) {
        uint64_t ticks;
        ssize_t r = read(tfd, &ticks, sizeof ticks);
        (void)r;
      } else {
        int i = (int)tag;
        Conn *c = &conns[i];
        if (!c->open) continue;
        if (events[e].events & EPOLLOUT && c->out_len > 0) {
          ssize_t w = write(c->fd, c->out, c->out_len);
          if (w > 0) {
            memmove(c->out, c->out + w, c->out_len - (size_t)w);
            c->out_len -= (size_t)w;
          }
          if (c->out_len == 0) {
            struct epoll_event cev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
            epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &cev);
          }
        }
        if (events[e].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
          ssize_t r = read(c->fd, rbuf, sizeof rbuf);
          if (r <= 0) {
            if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) continue;
            close_conn(epfd, i);
            continue;
          }
          c->in = grow(c->in, &c->in_cap, c->in_len + (size_t)r, 1);
          memcpy(c->in + c->in_len, rbuf, (size_t)r);
          c->in_len += (size_t)r;
          /* One request at a time per connection: the next is read once this answer ended. */
          while (!c->streaming && c->in_len > 0) {
            size_t took = take_request(epfd, i);
            if (took == 0) break;
            memmove(c->in, c->in + took, c->in_len - took);
            c->in_len -= took;
          }
        }
      }
    }
    /* Every token due now is written, in order of its due time. */
    int64_t t = now_ns();
    while (heap_len > 0 && heap[0].due <= t) {
      Due d = heap_pop();
      Conn *c = &conns[d.conn];
      if (c->open && c->gen == d.gen && c->streaming) {
        write_token(epfd, d.conn);
        /* A request pipelined behind this answer starts once it ended. */
        while (c->open && !c->streaming && c->in_len > 0) {
          size_t took = take_request(epfd, d.conn);
          if (took == 0) break;
          memmove(c->in, c->in + took, c->in_len - took);
          c->in_len -= took;
        }
      }
      t = now_ns();
    }
    arm(tfd);
  }
  FILE *f = fopen(log_path, "w");
  if (!f) {
    perror(log_path);
    return 1;
  }
  fwrite(logbuf, 1, log_len, f);
  fclose(f);
  return 0;
}

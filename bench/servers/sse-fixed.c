/*
 * The benchmark's fixed-schedule streaming server, in C (flowgauge's own, compiled at bench time
 * by bench/lib/c-server.ts): the same answers as sse-server.ts in paced mode, from one epoll loop
 * and one timer heap, so that at 10,000 streams the target is not itself the bottleneck (the
 * Node server saturated its core there, and its lateness went into every client's figures).
 *
 *   sse-fixed --tokens 20 --interval-ms 500 --first-ms 20 --jitter 0.5 --list-file PATH
 *
 * POST .../stream: a chunked text/event-stream answer: `start`, then the tokens on schedule
 * (the first after --first-ms, then every --interval-ms, each stream's delay, gap and count
 * varied by up to ±--jitter with the same seeded generator as sse-server.ts), each carrying
 * `sent_ns`, CLOCK_MONOTONIC read just before its write (the clock process.hrtime reads), then
 * `end`. Any other request: the flow list of --list-file. Keep-alive, one request at a time per
 * connection. Prints `READY {"port":N}` once listening; ends on SIGTERM.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef struct conn {
  int fd;
  char *in;
  size_t in_len, in_cap;
  char *out;
  size_t out_len, out_off, out_cap;
  int streaming, tokens, sent, run;
  double gap_ms;
  uint64_t due_ns;
  int heap_at; /* -1 when not scheduled */
  int want_out;
} conn;

static int tokens = 20, epfd;
static double interval_ms = 20, first_ms = 20, jitter = 0.5;
static char *list_body;
static size_t list_len;
static int runs;
static conn **heap;
static int heap_len, heap_cap;
static uint32_t seed = 0x5eed;

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* mulberry32, as sse-server.ts: the same arguments give the same streams. */
static double rnd(void) {
  seed += 0x6d2b79f5u;
  uint32_t t = seed;
  t = (t ^ (t >> 15)) * (t | 1u);
  t ^= t + (t ^ (t >> 7)) * (t | 61u);
  return (double)(t ^ (t >> 14)) / 4294967296.0;
}
static double vary(double v) { return v * (1 + jitter * (2 * rnd() - 1)); }

static void heap_swap(int a, int b) {
  conn *x = heap[a];
  heap[a] = heap[b];
  heap[b] = x;
  heap[a]->heap_at = a;
  heap[b]->heap_at = b;
}
static void heap_up(int i) {
  while (i > 0 && heap[(i - 1) / 2]->due_ns > heap[i]->due_ns) { heap_swap(i, (i - 1) / 2); i = (i - 1) / 2; }
}
static void heap_down(int i) {
  for (;;) {
    int l = 2 * i + 1, r = l + 1, m = i;
    if (l < heap_len && heap[l]->due_ns < heap[m]->due_ns) m = l;
    if (r < heap_len && heap[r]->due_ns < heap[m]->due_ns) m = r;
    if (m == i) return;
    heap_swap(i, m);
    i = m;
  }
}
static void schedule(conn *c, uint64_t due) {
  c->due_ns = due;
  if (heap_len == heap_cap) { heap_cap = heap_cap ? heap_cap * 2 : 1024; heap = realloc(heap, sizeof(conn *) * (size_t)heap_cap); }
  heap[heap_len] = c;
  c->heap_at = heap_len++;
  heap_up(c->heap_at);
}
static void unschedule(conn *c) {
  int i = c->heap_at;
  if (i < 0) return;
  c->heap_at = -1;
  if (--heap_len == i) return;
  heap[i] = heap[heap_len];
  heap[i]->heap_at = i;
  heap_up(i);
  heap_down(heap[i]->heap_at);
}

static void close_conn(conn *c) {
  unschedule(c);
  epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
  close(c->fd);
  free(c->in);
  free(c->out);
  free(c);
}

static void want_out(conn *c, int on) {
  if (c->want_out == on) return;
  c->want_out = on;
  struct epoll_event ev = {.events = EPOLLIN | (on ? EPOLLOUT : 0), .data.ptr = c};
  epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev);
}

/* Writes what is pending; 0 when the connection failed (closed). */
static int flush(conn *c) {
  while (c->out_off < c->out_len) {
    ssize_t n = write(c->fd, c->out + c->out_off, c->out_len - c->out_off);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) { want_out(c, 1); return 1; }
      if (errno == EINTR) continue;
      close_conn(c);
      return 0;
    }
    c->out_off += (size_t)n;
  }
  c->out_len = c->out_off = 0;
  want_out(c, 0);
  return 1;
}

static void append(conn *c, const char *s, size_t n) {
  if (c->out_len + n > c->out_cap) {
    while (c->out_len + n > c->out_cap) c->out_cap = c->out_cap ? c->out_cap * 2 : 4096;
    c->out = realloc(c->out, c->out_cap);
  }
  memcpy(c->out + c->out_len, s, n);
  c->out_len += n;
}

/* One SSE event as one chunk of the chunked body. */
static void chunk(conn *c, const char *event, int len) {
  char size[16];
  int k = snprintf(size, sizeof size, "%x\r\n", len);
  append(c, size, (size_t)k);
  append(c, event, (size_t)len);
  append(c, "\r\n", 2);
}

static const char SSE_HEAD[] = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n"
                               "x-ratelimit-limit: 1000000000\r\nx-ratelimit-remaining: 999999999\r\nx-ratelimit-reset: 60\r\n"
                               "transfer-encoding: chunked\r\n\r\n";

/* The stream's next token, or its end; 0 when the connection failed. */
static int step(conn *c) {
  char ev[256];
  int n;
  if (c->sent < c->tokens) {
    n = snprintf(ev, sizeof ev, "event: token\ndata: {\"type\":\"token\",\"content\":\"tok%d \",\"index\":%d,\"sent_ns\":\"%llu\"}\n\n", c->sent, c->sent,
                 (unsigned long long)now_ns());
    c->sent++;
    chunk(c, ev, n);
    if (c->sent < c->tokens) schedule(c, c->due_ns + (uint64_t)(c->gap_ms * 1e6));
    else schedule(c, c->due_ns); /* the end follows the last token at once */
  } else {
    n = snprintf(ev, sizeof ev, "event: end\ndata: {\"type\":\"end\",\"run_id\":\"run_%d\",\"usage\":{\"total_tokens\":%d,\"prompt_tokens\":12,\"completion_tokens\":%d}}\n\n",
                 c->run, c->tokens + 12, c->tokens);
    chunk(c, ev, n);
    append(c, "0\r\n\r\n", 5);
    c->streaming = 0;
  }
  return flush(c);
}

static void handle_requests(conn *c);

static void on_timer(conn *c) {
  if (!step(c)) return;
  if (!c->streaming) handle_requests(c); /* a request that came early waits for the stream's end */
}

/* Answers every complete request buffered (one stream at a time). */
static void handle_requests(conn *c) {
  while (!c->streaming) {
    char *end = memmem(c->in, c->in_len, "\r\n\r\n", 4);
    if (end == NULL) return;
    size_t head = (size_t)(end - c->in) + 4;
    size_t body = 0;
    for (char *p = c->in; p < end; p++) {
      if (*p == '\n' && end - p > 16 && strncasecmp(p + 1, "content-length:", 15) == 0) body = (size_t)strtoul(p + 16, NULL, 10);
    }
    if (c->in_len < head + body) return;
    char *line_end = memmem(c->in, head, "\r\n", 2);
    int stream = strncmp(c->in, "POST ", 5) == 0 && memmem(c->in, (size_t)(line_end - c->in), "/stream", 7) != NULL;
    memmove(c->in, c->in + head + body, c->in_len - head - body);
    c->in_len -= head + body;
    if (stream) {
      c->run = ++runs;
      c->tokens = (int)(vary(tokens) + 0.5);
      if (c->tokens < 1) c->tokens = 1;
      c->gap_ms = vary(interval_ms);
      double delay = first_ms > 0 ? vary(first_ms) : 0;
      c->sent = 0;
      c->streaming = 1;
      append(c, SSE_HEAD, sizeof SSE_HEAD - 1);
      char ev[128];
      int n = snprintf(ev, sizeof ev, "event: start\ndata: {\"type\":\"start\",\"run_id\":\"run_%d\"}\n\n", c->run);
      chunk(c, ev, n);
      schedule(c, now_ns() + (uint64_t)(delay * 1e6));
    } else {
      char h[256];
      int n = snprintf(h, sizeof h, "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nx-ratelimit-limit: 1000000000\r\nx-ratelimit-remaining: 999999999\r\nx-ratelimit-reset: 60\r\ncontent-length: %zu\r\n\r\n", list_len);
      append(c, h, (size_t)n);
      append(c, list_body, list_len);
    }
    if (!flush(c)) return;
  }
}

static void on_readable(conn *c) {
  for (;;) {
    if (c->in_cap - c->in_len < 4096) { c->in_cap = c->in_cap ? c->in_cap * 2 : 8192; c->in = realloc(c->in, c->in_cap); }
    ssize_t n = read(c->fd, c->in + c->in_len, c->in_cap - c->in_len);
    if (n > 0) { c->in_len += (size_t)n; continue; }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n < 0 && errno == EINTR) continue;
    close_conn(c);
    return;
  }
  handle_requests(c);
}

static double arg(int argc, char **argv, const char *name, double fallback) {
  for (int i = 1; i + 1 < argc; i++) if (strcmp(argv[i], name) == 0) return atof(argv[i + 1]);
  return fallback;
}

int main(int argc, char **argv) {
  tokens = (int)arg(argc, argv, "--tokens", 20);
  interval_ms = arg(argc, argv, "--interval-ms", 20);
  first_ms = arg(argc, argv, "--first-ms", 20);
  jitter = arg(argc, argv, "--jitter", 0.5);
  const char *list = NULL;
  for (int i = 1; i + 1 < argc; i++) if (strcmp(argv[i], "--list-file") == 0) list = argv[i + 1];
  if (list == NULL) { fprintf(stderr, "--list-file is required\n"); return 2; }
  FILE *f = fopen(list, "rb");
  if (f == NULL) { perror(list); return 2; }
  fseek(f, 0, SEEK_END);
  list_len = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  list_body = malloc(list_len + 1);
  if (fread(list_body, 1, list_len, f) != list_len) { perror(list); return 2; }
  fclose(f);
  signal(SIGPIPE, SIG_IGN);
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0) { rl.rlim_cur = rl.rlim_max; setrlimit(RLIMIT_NOFILE, &rl); }

  int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  int one = 1;
  setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK), .sin_port = 0};
  if (bind(lfd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(lfd, 4096) != 0) { perror("listen"); return 1; }
  socklen_t alen = sizeof addr;
  getsockname(lfd, (struct sockaddr *)&addr, &alen);
  epfd = epoll_create1(0);
  struct epoll_event lev = {.events = EPOLLIN, .data.ptr = NULL};
  epoll_ctl(epfd, EPOLL_CTL_ADD, lfd, &lev);
  printf("READY {\"port\":%d}\n", ntohs(addr.sin_port));
  fflush(stdout);

  struct epoll_event events[1024];
  for (;;) {
    int timeout = -1;
    if (heap_len > 0) {
      uint64_t now = now_ns(), due = heap[0]->due_ns;
      timeout = due <= now ? 0 : (int)((due - now + 999999) / 1000000);
    }
    int n = epoll_wait(epfd, events, 1024, timeout);
    for (int i = 0; i < n; i++) {
      conn *c = events[i].data.ptr;
      if (c == NULL) {
        for (;;) {
          int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK);
          if (fd < 0) break;
          setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          conn *nc = calloc(1, sizeof *nc);
          nc->fd = fd;
          nc->heap_at = -1;
          struct epoll_event ev = {.events = EPOLLIN, .data.ptr = nc};
          epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
        }
        continue;
      }
      if (events[i].events & EPOLLOUT) { if (!flush(c)) continue; }
      if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) on_readable(c);
    }
    /* Every token due by now, in order of its schedule; a late loop sends them late, never early. */
    uint64_t now = now_ns();
    while (heap_len > 0 && heap[0]->due_ns <= now) {
      conn *c = heap[0];
      unschedule(c);
      on_timer(c);
    }
  }
}

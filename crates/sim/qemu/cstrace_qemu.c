/* cstrace_qemu: a qemu-user TCG plugin that writes cryptospeed's binary execution trace, the
 * stream the valgrind tool cstrace writes (see ../valgrind/cstrace_main.c for the format), so
 * every analysis of crates/sim reads a build for another instruction set unchanged.
 *
 * Why this shape: qemu tells a plugin, per translated block, each instruction's address and
 * bytes, and at run time calls back when a block starts and per memory access (address, size,
 * load or store). A block runs from its first instruction to its last (it ends at every branch,
 * system call or exception point), so one callback per block stands for all its instructions,
 * and each access callback carries its instruction's index. What a block did is written when
 * the next one starts: one segment per block and access pattern (DEF on first use: its
 * instructions with their bytes, each followed by the accesses it made; EXEC: one word, then
 * the accesses' addresses). The accesses an instruction makes are known only when it runs (qemu
 * splits a 16-byte vector access in two; a repeated string instruction may make none), so a
 * block that runs with another pattern gets a segment of its own. The order of the stream is the
 * order of execution: instruction, then its accesses. A block qemu leaves in its middle (a
 * fault the program handles) would count its remaining instructions too; the workers traced
 * here take none inside the measured calls.
 *
 * Arguments: out=PATH (the trace file or pipe), mark=HEXADDR:CODE (repeatable: executing the
 * instruction at HEXADDR writes the marker CODE before it, as the worker's marker functions),
 * mark_symbol=NAME:CODE (repeatable: entering the function NAME writes CODE; qemu names each
 * instruction's symbol from the program's symbol table, so a position-independent program's
 * markers are found wherever it was loaded). A function is entered at the first of its
 * instructions in a translated block: its first instruction, or the one a call jumps to (a
 * ppc64le call within a program enters after the two instructions that set up the TOC). NAME
 * matches a symbol equal to it or, for a mangled name (Rust's), one containing it.
 * window=1: execute and access records only from marker 1 or 2 (warm-up, measure) to marker 3
 * (end), as `profile` reads them; the program's start-up and requests before them (parsing the
 * known-answer vectors …) run untraced, at qemu's own speed.
 */
#include "plugin_api.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = 1;

#define TAG_DEF (3ULL << 62)
#define TAG_EXEC (2ULL << 62)
#define TAG_MARK (1ULL << 62)
#define BUF_WORDS (1 << 16)
#define MAX_MARKS 16

static int out_fd = -1;
static uint64_t buf[BUF_WORDS];
static size_t used;
static uint64_t next_segment;
static uint64_t mark_addr[MAX_MARKS];
static uint32_t mark_code[MAX_MARKS];
static int n_marks;
static char *mark_symbol[MAX_MARKS];
static uint32_t mark_symbol_code[MAX_MARKS];
static int n_mark_symbols;
static int windowed;
static int active = 1;

struct block;

/* One instruction of a translated block: what its access callbacks are told. */
struct insn {
    struct block *block;
    uint32_t index;
    uint32_t len;
    uint64_t addr;
    uint8_t bytes[24];
};

/* A segment written for a run of a block's instructions [from, to) with these accesses. */
struct shape {
    struct shape *next;
    uint32_t from, to, n_accesses;
    uint64_t segment;
    uint32_t *accesses; /* per access: instruction index << 8 | store << 4 | size shift */
};

struct block {
    uint32_t n;
    struct shape *shapes;
    struct insn insns[];
};

/* A marker instruction: its block, its index there and the code it writes. */
struct mark {
    struct block *block;
    uint32_t index;
    uint32_t code;
};

/* What the running block has done since it started (or since a marker inside it). */
static struct block *current;
static uint32_t run_from;
static uint32_t *run_accesses;
static uint64_t *run_addrs;
static uint32_t run_n, run_cap;

static void flush(void)
{
    const char *p = (const char *)buf;
    size_t n = used * sizeof(uint64_t);
    while (n > 0) {
        ssize_t w = write(out_fd, p, n);
        if (w <= 0) {
            qemu_plugin_outs("cstrace_qemu: cannot write the trace\n");
            _exit(3);
        }
        p += w;
        n -= (size_t)w;
    }
    used = 0;
}

static inline void put(uint64_t w)
{
    if (used == BUF_WORDS)
        flush();
    buf[used++] = w;
}

static void *xalloc(size_t n)
{
    void *p = calloc(1, n);
    if (p == NULL) {
        qemu_plugin_outs("cstrace_qemu: out of memory\n");
        _exit(3);
    }
    return p;
}

/* Writes the definition of a new segment: instructions [from, to) of `b`, each followed by the
 * data items of its accesses. */
static struct shape *define(struct block *b, uint32_t from, uint32_t to)
{
    struct shape *s = xalloc(sizeof *s);
    s->from = from;
    s->to = to;
    s->n_accesses = run_n;
    s->accesses = xalloc((run_n + 1) * sizeof *s->accesses);
    memcpy(s->accesses, run_accesses, run_n * sizeof *run_accesses);
    s->segment = next_segment++;
    s->next = b->shapes;
    b->shapes = s;
    put(TAG_DEF | ((uint64_t)(to - from + run_n) << 32) | s->segment);
    uint32_t a = 0;
    for (uint32_t i = from; i < to; i++) {
        const struct insn *in = &b->insns[i];
        put((in->addr & 0xFFFFFFFFFFFFULL) | ((uint64_t)in->len << 48));
        for (uint32_t c = 0; c < (in->len + 7) / 8; c++) {
            uint64_t w;
            memcpy(&w, in->bytes + c * 8, 8);
            put(w);
        }
        for (; a < run_n && (run_accesses[a] >> 8) == i; a++) {
            uint32_t store = (run_accesses[a] >> 4) & 1, shift = run_accesses[a] & 7;
            put((1ULL << 63) | ((uint64_t)(1u << shift) << 8) | (uint64_t)(store ? 2 : 1));
        }
    }
    return s;
}

/* Writes what the running block did in instructions [run_from, to): one EXEC and the addresses. */
static void emit_run(uint32_t to)
{
    struct block *b = current;
    struct shape *s;
    if (b == NULL || to <= run_from)
        return;
    for (s = b->shapes; s != NULL; s = s->next)
        if (s->from == run_from && s->to == to && s->n_accesses == run_n &&
            memcmp(s->accesses, run_accesses, run_n * sizeof *run_accesses) == 0)
            break;
    if (s == NULL)
        s = define(b, run_from, to);
    put(TAG_EXEC | s->segment);
    for (uint32_t a = 0; a < run_n; a++)
        put(run_addrs[a]);
    run_n = 0;
}

static void block_starts(unsigned int vcpu, void *ud)
{
    (void)vcpu;
    if (current != NULL)
        emit_run(current->n);
    current = active ? (struct block *)ud : NULL;
    run_from = 0;
    run_n = 0;
}

static void exec_mark(unsigned int vcpu, void *ud)
{
    (void)vcpu;
    const struct mark *m = ud;
    if (current != NULL)
        emit_run(m->index);
    put(TAG_MARK | m->code);
    if (windowed)
        active = m->code == 1 || m->code == 2;
    current = active ? m->block : NULL;
    run_from = m->index;
    run_n = 0;
}

static void mem_access(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *ud)
{
    (void)vcpu;
    const struct insn *in = ud;
    if (current != in->block || in->index < run_from)
        return;
    if (run_n == run_cap) {
        run_cap = run_cap ? run_cap * 2 : 1024;
        run_accesses = realloc(run_accesses, run_cap * sizeof *run_accesses);
        run_addrs = realloc(run_addrs, run_cap * sizeof *run_addrs);
        if (run_accesses == NULL || run_addrs == NULL) {
            qemu_plugin_outs("cstrace_qemu: out of memory\n");
            _exit(3);
        }
    }
    run_accesses[run_n] = in->index << 8 | (qemu_plugin_mem_is_store(info) ? 1u : 0u) << 4 |
                          (qemu_plugin_mem_size_shift(info) & 7);
    run_addrs[run_n++] = vaddr;
}

/* The marker code of a symbol-named marker that `symbol` (an instruction's) is, else 0. */
static uint32_t symbol_mark(const char *symbol)
{
    if (symbol == NULL)
        return 0;
    for (int m = 0; m < n_mark_symbols; m++)
        if (strcmp(symbol, mark_symbol[m]) == 0 ||
            (strncmp(symbol, "_ZN", 3) == 0 && strstr(symbol, mark_symbol[m]) != NULL))
            return mark_symbol_code[m];
    return 0;
}

/* The marker code instruction `i` of a block writes, else 0: by address, or by entering a
 * symbol-named marker function. */
static uint32_t mark_of(struct qemu_plugin_insn *insn, size_t i, const char **previous_symbol)
{
    uint64_t addr = qemu_plugin_insn_vaddr(insn);
    uint32_t code = 0;
    for (int m = 0; m < n_marks; m++)
        if (mark_addr[m] == addr)
            code = mark_code[m];
    if (n_mark_symbols > 0) {
        const char *symbol = qemu_plugin_insn_symbol(insn);
        uint32_t by_name = symbol_mark(symbol);
        int entered = i == 0 || *previous_symbol == NULL || symbol == NULL ||
                      strcmp(symbol, *previous_symbol) != 0;
        if (by_name != 0 && entered)
            code = by_name;
        *previous_symbol = symbol;
    }
    return code;
}

/* Keeps each instruction of a newly translated block and asks for its callbacks. */
static void translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    struct block *b = xalloc(sizeof *b + n * sizeof(struct insn));
    const char *previous_symbol = NULL;
    b->n = (uint32_t)n;
    qemu_plugin_register_vcpu_tb_exec_cb(tb, block_starts, QEMU_PLUGIN_CB_NO_REGS, b);
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        struct insn *in = &b->insns[i];
        size_t len = qemu_plugin_insn_size(insn);
        if (len == 0 || len > 24)
            len = len == 0 ? 1 : 24;
        in->block = b;
        in->index = (uint32_t)i;
        in->len = (uint32_t)len;
        in->addr = qemu_plugin_insn_vaddr(insn);
        memcpy(in->bytes, qemu_plugin_insn_data(insn), len);
        uint32_t code = mark_of(insn, i, &previous_symbol);
        if (code != 0) {
            struct mark *m = xalloc(sizeof *m);
            m->block = b;
            m->index = (uint32_t)i;
            m->code = code;
            qemu_plugin_register_vcpu_insn_exec_cb(insn, exec_mark, QEMU_PLUGIN_CB_NO_REGS, m);
        }
        qemu_plugin_register_vcpu_mem_cb(insn, mem_access, QEMU_PLUGIN_CB_NO_REGS,
                                         QEMU_PLUGIN_MEM_RW, in);
    }
}

static void at_exit(qemu_plugin_id_t id, void *ud)
{
    (void)id;
    (void)ud;
    if (current != NULL)
        emit_run(current->n);
    flush();
    close(out_fd);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
                                           char **argv)
{
    (void)info;
    const char *out = NULL;
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "out=", 4) == 0) {
            out = argv[i] + 4;
        } else if (strncmp(argv[i], "mark=", 5) == 0 && n_marks < MAX_MARKS) {
            char *end = NULL;
            mark_addr[n_marks] = strtoull(argv[i] + 5, &end, 16);
            if (end == NULL || *end != ':')
                return 1;
            mark_code[n_marks++] = (uint32_t)strtoul(end + 1, NULL, 10);
        } else if (strcmp(argv[i], "window=1") == 0) {
            windowed = 1;
            active = 0;
        } else if (strncmp(argv[i], "mark_symbol=", 12) == 0 && n_mark_symbols < MAX_MARKS) {
            char *name = strdup(argv[i] + 12);
            char *colon = strrchr(name, ':');
            if (colon == NULL || colon == name)
                return 1;
            *colon = '\0';
            mark_symbol[n_mark_symbols] = name;
            mark_symbol_code[n_mark_symbols++] = (uint32_t)strtoul(colon + 1, NULL, 10);
        } else {
            fprintf(stderr, "cstrace_qemu: unknown argument '%s'\n", argv[i]);
            return 1;
        }
    }
    if (out == NULL) {
        fprintf(stderr, "cstrace_qemu: give out=PATH\n");
        return 1;
    }
    out_fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out_fd < 0) {
        perror("cstrace_qemu: out");
        return 1;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, translate);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}

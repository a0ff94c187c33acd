/* cstrace_qemu: a qemu-user TCG plugin that writes cryptospeed's binary execution trace, the
 * stream the valgrind tool cstrace writes (see ../valgrind/cstrace_main.c for the format), so
 * every analysis of crates/sim reads a build for another instruction set unchanged.
 *
 * Why this shape: qemu tells a plugin, per translated block, each instruction's address and
 * bytes, and at run time calls back per executed instruction and per memory access (address,
 * size, load or store). The number of accesses an instruction makes is known only when it runs
 * (qemu splits a 16-byte vector access in two), so every instruction is a segment of its own
 * (DEF: one instruction item with its bytes; EXEC: one word), and every access is an EXEC of a
 * one-item data segment (one per kind and size, defined on first use) followed by its address.
 * The order of the stream is the order of execution: instruction, then its accesses.
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
 * known-answer vectors …) run untraced, at qemu's own speed. Definitions are always written, so
 * a block translated before the window opens is known inside it.
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
#define BUF_WORDS (1 << 15)
#define MAX_MARKS 16

static int out_fd = -1;
static uint64_t buf[BUF_WORDS + 64];
static size_t used;
static uint64_t next_segment;
/* Data segment ids by kind (0 load, 1 store) and size shift (0..4), 0 = not yet defined. */
static uint64_t data_segment[2][8];
static uint64_t mark_addr[MAX_MARKS];
static uint32_t mark_code[MAX_MARKS];
static int n_marks;
static char *mark_symbol[MAX_MARKS];
static uint32_t mark_symbol_code[MAX_MARKS];
static int n_mark_symbols;
static int windowed;
static int active = 1;

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
    buf[used++] = w;
    if (used >= BUF_WORDS)
        flush();
}

static void exec_insn(unsigned int vcpu, void *segment)
{
    (void)vcpu;
    if (!active)
        return;
    put(TAG_EXEC | (uint64_t)(uintptr_t)segment);
}

static void exec_mark(unsigned int vcpu, void *code)
{
    (void)vcpu;
    uint32_t c = (uint32_t)(uintptr_t)code;
    put(TAG_MARK | c);
    if (windowed)
        active = c == 1 || c == 2;
}

static void mem_access(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *ud)
{
    (void)vcpu;
    (void)ud;
    if (!active)
        return;
    int store = qemu_plugin_mem_is_store(info) ? 1 : 0;
    unsigned shift = qemu_plugin_mem_size_shift(info) & 7;
    uint64_t id = data_segment[store][shift];
    if (id == 0) {
        id = next_segment++;
        data_segment[store][shift] = id;
        put(TAG_DEF | (1ULL << 32) | id);
        put((1ULL << 63) | ((uint64_t)(1u << shift) << 8) | (uint64_t)(store ? 2 : 1));
    }
    put(TAG_EXEC | id);
    put(vaddr);
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

/* Defines each instruction of a newly translated block and asks for its callbacks. */
static void translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    const char *previous_symbol = NULL;
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        uint64_t addr = qemu_plugin_insn_vaddr(insn);
        if (n_mark_symbols > 0) {
            const char *symbol = qemu_plugin_insn_symbol(insn);
            uint32_t code = symbol_mark(symbol);
            int entered = i == 0 || previous_symbol == NULL || symbol == NULL ||
                          strcmp(symbol, previous_symbol) != 0;
            if (code != 0 && entered)
                qemu_plugin_register_vcpu_insn_exec_cb(insn, exec_mark, QEMU_PLUGIN_CB_NO_REGS,
                                                       (void *)(uintptr_t)code);
            previous_symbol = symbol;
        }
        size_t len = qemu_plugin_insn_size(insn);
        if (len == 0 || len > 24)
            len = len == 0 ? 1 : 24;
        uint64_t seg = next_segment++;
        put(TAG_DEF | (1ULL << 32) | seg);
        put((addr & 0xFFFFFFFFFFFFULL) | ((uint64_t)len << 48));
        uint8_t bytes[24] = {0};
        memcpy(bytes, qemu_plugin_insn_data(insn), len);
        for (size_t c = 0; c < (len + 7) / 8; c++) {
            uint64_t w;
            memcpy(&w, bytes + c * 8, 8);
            put(w);
        }
        for (int m = 0; m < n_marks; m++)
            if (mark_addr[m] == addr)
                qemu_plugin_register_vcpu_insn_exec_cb(insn, exec_mark, QEMU_PLUGIN_CB_NO_REGS,
                                                       (void *)(uintptr_t)mark_code[m]);
        qemu_plugin_register_vcpu_insn_exec_cb(insn, exec_insn, QEMU_PLUGIN_CB_NO_REGS,
                                               (void *)(uintptr_t)seg);
        qemu_plugin_register_vcpu_mem_cb(insn, mem_access, QEMU_PLUGIN_CB_NO_REGS,
                                         QEMU_PLUGIN_MEM_RW, NULL);
    }
}

static void at_exit(qemu_plugin_id_t id, void *ud)
{
    (void)id;
    (void)ud;
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

/* cstrace: a small valgrind tool that writes cryptospeed's binary execution trace.
 *
 * Why it exists: lackey prints one text line per instruction and data access (~1 M
 * instructions/s). cstrace writes 8-byte words instead, and most of them from inline IR
 * rather than helper calls, so a trace costs little more than valgrind's own translation.
 *
 * The stream (little-endian u64 words, top two bits tag a record):
 *   DEF   11 | n_items<<32 | segment id   then n_items item words, written when a segment
 *         is instrumented (always before it first runs):
 *           instruction: bit63=0, addr (bits 0..47), len (bits 48..55), followed by
 *                        ceil(len/8) words holding the instruction's bytes;
 *           data access: bit63=1, kind (bits 0..3: 1 read, 2 write, 3 modify),
 *                        bit 4 "size capped like cachegrind's dirty helpers",
 *                        bit 5 "guarded: address 0 means not performed", size (bits 8..23).
 *   EXEC  10 | segment id   followed by one address word per data item of the segment.
 *   MARK  01 | code         a client request from the worker (1 warm-up, 2 measure, 3 end).
 *
 * A segment is the run of statements in a superblock between side exits, so every item of a
 * segment executes whenever its EXEC record is written. Data accesses are recorded the way
 * cachegrind's instrumentation sees them (a load followed by a store of the same address and
 * size in one instruction is one "modify"), so cachegrind is an oracle for the simulator.
 */
#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_options.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_vki.h"
#include "valgrind.h"

#define TAG_DEF  (3ULL << 62)
#define TAG_EXEC (2ULL << 62)
#define TAG_MARK (1ULL << 62)

#define KIND_READ   1
#define KIND_WRITE  2
#define KIND_MODIFY 3
#define FLAG_CAPPED 0x10
#define FLAG_GUARD  0x20

#define CSTRACE_REQ_MARK VG_USERREQ_TOOL_BASE('C', 'S')

/* Flushed in pieces well under the pipe's capacity, so a write returns at once and the reader
   works while the program runs on (an 8 MB flush into a 1 MB pipe serialises the two). */
#define BUF_WORDS (1 << 15)
#define SLACK_WORDS (1 << 16)

static const HChar *clo_out = NULL;
static Int out_fd = -1;
static ULong trace_buf[BUF_WORDS + SLACK_WORDS];
/* Written by the inline IR of every segment. */
static ULong *trace_cur = trace_buf;
static ULong n_segments = 0;
static ULong bytes_written = 0;

static void write_all(const void *p, SizeT n)
{
   const UChar *b = p;
   while (n > 0) {
      Int w = VG_(write)(out_fd, b, n);
      if (w <= 0) {
         VG_(umsg)("cstrace: cannot write the trace to '%s'\n", clo_out);
         VG_(exit)(3);
      }
      b += w;
      n -= w;
   }
   bytes_written += (b - (const UChar *)p);
}

static void flush_trace(void)
{
   SizeT n = (SizeT)(trace_cur - trace_buf) * sizeof(ULong);
   if (n > 0)
      write_all(trace_buf, n);
   trace_cur = trace_buf;
}

static VG_REGPARM(0) void flush_helper(void) { flush_trace(); }

static void ensure_room(SizeT words)
{
   if (trace_cur + words > trace_buf + BUF_WORDS)
      flush_trace();
   tl_assert(trace_cur + words <= trace_buf + BUF_WORDS + SLACK_WORDS);
}

/* ---- instrumentation ---------------------------------------------------- */

typedef struct {
   Bool is_instr;
   Addr addr;   /* instruction address */
   UInt len;    /* instruction length or data size */
   UInt kind;   /* data kind and flags */
   IRExpr *ea;  /* data address atom, for merging a store into a modify */
} Item;

#define MAX_ITEMS 4096
static Item items[MAX_ITEMS];
static Int n_items;
static Int n_mem;
static Bool seg_open;
static IRTemp seg_base;
static UInt seg_id;

static IRExpr *u64(ULong v) { return IRExpr_Const(IRConst_U64(v)); }

static IRTemp assign(IRSB *sb, IRExpr *e, IRType ty)
{
   IRTemp t = newIRTemp(sb->tyenv, ty);
   addStmtToIRSB(sb, IRStmt_WrTmp(t, e));
   return t;
}

static void open_segment(IRSB *sb)
{
   if (seg_open)
      return;
   seg_open = True;
   n_items = 0;
   n_mem = 0;
   seg_id = (UInt)n_segments++;
   /* if (trace_cur > end of buffer) flush(); */
   IRTemp cur0 = assign(sb, IRExpr_Load(Iend_LE, Ity_I64, u64((HWord)&trace_cur)), Ity_I64);
   IRTemp full = assign(sb, IRExpr_Binop(Iop_CmpLT64U, u64((HWord)(trace_buf + BUF_WORDS)),
                                         IRExpr_RdTmp(cur0)), Ity_I1);
   IRDirty *d = unsafeIRDirty_0_N(0, "flush_helper", VG_(fnptr_to_fnentry)(&flush_helper),
                                  mkIRExprVec_0());
   d->guard = IRExpr_RdTmp(full);
   d->mFx = Ifx_Modify;
   d->mAddr = u64((HWord)&trace_cur);
   d->mSize = sizeof(ULong);
   addStmtToIRSB(sb, IRStmt_Dirty(d));
   seg_base = assign(sb, IRExpr_Load(Iend_LE, Ity_I64, u64((HWord)&trace_cur)), Ity_I64);
   addStmtToIRSB(sb, IRStmt_Store(Iend_LE, IRExpr_RdTmp(seg_base), u64(TAG_EXEC | seg_id)));
}

static void add_item(Item it)
{
   if (n_items >= MAX_ITEMS)
      VG_(tool_panic)("cstrace: segment has too many items");
   items[n_items++] = it;
}

static void add_instr(IRSB *sb, Addr addr, UInt len)
{
   open_segment(sb);
   Item it = { True, addr, len, 0, NULL };
   add_item(it);
}

static void add_data(IRSB *sb, UInt kind, UInt size, IRExpr *ea, IRExpr *guard)
{
   open_segment(sb);
   if ((kind & 0xF) == KIND_WRITE && guard == NULL && n_items > 0) {
      Item *last = &items[n_items - 1];
      if (!last->is_instr && (last->kind & 0xF) == KIND_READ && !(last->kind & FLAG_GUARD)
          && last->len == size && (last->kind & FLAG_CAPPED) == (kind & FLAG_CAPPED)
          && last->ea != NULL && eqIRAtom(last->ea, ea)) {
         last->kind = (last->kind & ~0xFU) | KIND_MODIFY;
         return;
      }
   }
   if (n_mem + 2 >= SLACK_WORDS)
      VG_(tool_panic)("cstrace: segment has too many data accesses");
   IRExpr *value = ea;
   if (guard != NULL) {
      kind |= FLAG_GUARD;
      value = IRExpr_RdTmp(assign(sb, IRExpr_ITE(guard, ea, u64(0)), Ity_I64));
   }
   IRTemp slot = assign(sb, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(seg_base),
                                         u64(8ULL * (ULong)(n_mem + 1))), Ity_I64);
   addStmtToIRSB(sb, IRStmt_Store(Iend_LE, IRExpr_RdTmp(slot), value));
   n_mem++;
   Item it = { False, 0, size, kind, guard == NULL ? ea : NULL };
   add_item(it);
}

static void close_segment(IRSB *sb)
{
   if (!seg_open)
      return;
   seg_open = False;
   IRTemp next = assign(sb, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(seg_base),
                                         u64(8ULL * (ULong)(n_mem + 1))), Ity_I64);
   addStmtToIRSB(sb, IRStmt_Store(Iend_LE, u64((HWord)&trace_cur), IRExpr_RdTmp(next)));

   /* The definition goes into the stream now, before the segment can run. */
   SizeT words = 1;
   for (Int i = 0; i < n_items; i++)
      words += items[i].is_instr ? 1 + (items[i].len + 7) / 8 : 1;
   ensure_room(words);
   *trace_cur++ = TAG_DEF | ((ULong)n_items << 32) | seg_id;
   for (Int i = 0; i < n_items; i++) {
      Item *it = &items[i];
      if (it->is_instr) {
         *trace_cur++ = ((ULong)it->addr & 0xFFFFFFFFFFFFULL) | ((ULong)it->len << 48);
         UInt nw = (it->len + 7) / 8;
         VG_(memset)(trace_cur, 0, nw * sizeof(ULong));
         VG_(memcpy)(trace_cur, (void *)it->addr, it->len);
         trace_cur += nw;
      } else {
         *trace_cur++ = (1ULL << 63) | ((ULong)it->len << 8) | it->kind;
      }
   }
}

static UInt capped(Int size) { return size > 64 ? 64 : (UInt)size; }

static IRSB *cs_instrument(VgCallbackClosure *closure, IRSB *sbIn,
                           const VexGuestLayout *layout, const VexGuestExtents *vge,
                           const VexArchInfo *archinfo_host, IRType gWordTy, IRType hWordTy)
{
   IRTypeEnv *tyenv = sbIn->tyenv;
   IRSB *sb = deepCopyIRSBExceptStmts(sbIn);
   Int i = 0;
   while (i < sbIn->stmts_used && sbIn->stmts[i]->tag != Ist_IMark) {
      addStmtToIRSB(sb, sbIn->stmts[i]);
      i++;
   }
   seg_open = False;
   for (; i < sbIn->stmts_used; i++) {
      IRStmt *st = sbIn->stmts[i];
      switch (st->tag) {
      case Ist_IMark: {
         UInt len = st->Ist.IMark.len;
         if (len == 0)
            len = VG_MIN_INSTR_SZB;
         add_instr(sb, (Addr)st->Ist.IMark.addr, len);
         break;
      }
      case Ist_WrTmp: {
         IRExpr *data = st->Ist.WrTmp.data;
         if (data->tag == Iex_Load)
            add_data(sb, KIND_READ, sizeofIRType(data->Iex.Load.ty), data->Iex.Load.addr, NULL);
         break;
      }
      case Ist_Store:
         add_data(sb, KIND_WRITE, sizeofIRType(typeOfIRExpr(tyenv, st->Ist.Store.data)),
                  st->Ist.Store.addr, NULL);
         break;
      case Ist_StoreG: {
         IRStoreG *sg = st->Ist.StoreG.details;
         add_data(sb, KIND_WRITE, sizeofIRType(typeOfIRExpr(tyenv, sg->data)), sg->addr,
                  sg->guard);
         break;
      }
      case Ist_LoadG: {
         IRLoadG *lg = st->Ist.LoadG.details;
         IRType ty = Ity_INVALID, wide = Ity_INVALID;
         typeOfIRLoadGOp(lg->cvt, &wide, &ty);
         add_data(sb, KIND_READ, sizeofIRType(ty), lg->addr, lg->guard);
         break;
      }
      case Ist_Dirty: {
         IRDirty *d = st->Ist.Dirty.details;
         if (d->mFx != Ifx_None) {
            UInt size = capped(d->mSize) ;
            if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify)
               add_data(sb, KIND_READ | FLAG_CAPPED, size, d->mAddr, NULL);
            if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
               add_data(sb, KIND_WRITE | FLAG_CAPPED, size, d->mAddr, NULL);
         }
         break;
      }
      case Ist_CAS: {
         IRCAS *cas = st->Ist.CAS.details;
         Int size = sizeofIRType(typeOfIRExpr(tyenv, cas->dataLo));
         if (cas->dataHi != NULL)
            size *= 2;
         add_data(sb, KIND_READ | FLAG_CAPPED, capped(size), cas->addr, NULL);
         add_data(sb, KIND_WRITE | FLAG_CAPPED, capped(size), cas->addr, NULL);
         break;
      }
      case Ist_LLSC:
         if (st->Ist.LLSC.storedata == NULL)
            add_data(sb, KIND_READ, sizeofIRType(typeOfIRTemp(tyenv, st->Ist.LLSC.result)),
                     st->Ist.LLSC.addr, NULL);
         else
            add_data(sb, KIND_WRITE, sizeofIRType(typeOfIRExpr(tyenv, st->Ist.LLSC.storedata)),
                     st->Ist.LLSC.addr, NULL);
         break;
      case Ist_Exit:
         /* Everything recorded so far has run if control reaches this exit. */
         close_segment(sb);
         break;
      default:
         break;
      }
      addStmtToIRSB(sb, st);
   }
   close_segment(sb);
   return sb;
}

/* ---- client requests: markers from the worker --------------------------- */

static Bool cs_handle_client_request(ThreadId tid, UWord *args, UWord *ret)
{
   if (args[0] != CSTRACE_REQ_MARK)
      return False;
   ensure_room(1);
   *trace_cur++ = TAG_MARK | (ULong)(args[1] & 0xFFFFFFFFULL);
   *ret = 1; /* lets the worker know it runs under cstrace */
   return True;
}

/* ---- options, start and end --------------------------------------------- */

static Bool cs_process_cmd_line_option(const HChar *arg)
{
   if VG_STR_CLO(arg, "--out", clo_out) {}
   else
      return False;
   return True;
}

static void cs_print_usage(void) { VG_(printf)("    --out=<file>   where the binary trace goes\n"); }

static void cs_print_debug_usage(void) {}

static void cs_post_clo_init(void)
{
   if (clo_out == NULL) {
      VG_(umsg)("cstrace: --out=<file> is required\n");
      VG_(exit)(2);
   }
   SysRes r = VG_(open)(clo_out, VKI_O_WRONLY | VKI_O_CREAT | VKI_O_TRUNC, 0600);
   if (sr_isError(r)) {
      VG_(umsg)("cstrace: cannot open '%s' for the trace\n", clo_out);
      VG_(exit)(2);
   }
   out_fd = sr_Res(r);
}

static void cs_fini(Int exitcode)
{
   flush_trace();
   VG_(close)(out_fd);
   VG_(umsg)("cstrace: %llu segments, %llu bytes of trace\n", n_segments, bytes_written);
}

static void cs_pre_clo_init(void)
{
   VG_(details_name)("cstrace");
   VG_(details_version)("1");
   VG_(details_description)("cryptospeed's binary execution trace");
   VG_(details_copyright_author)("cryptospeed developers");
   VG_(details_bug_reports_to)("the cryptospeed repository");
   VG_(details_avg_translation_sizeB)(600);
   VG_(basic_tool_funcs)(cs_post_clo_init, cs_instrument, cs_fini);
   VG_(needs_command_line_options)(cs_process_cmd_line_option, cs_print_usage,
                                   cs_print_debug_usage);
   VG_(needs_client_requests)(cs_handle_client_request);
}

VG_DETERMINE_INTERFACE_VERSION(cs_pre_clo_init)

# Every class and branch kind the ppc64le decoder tells apart. After "@@" on each line: the
# class the instruction is (load store alu muldiv crypto simd other cond jump call ret ind),
# the label a direct branch goes to, and the static hint the source writes (+ or -).
	.machine power9
	.text
start:
	ld 3, 8(1)             # @@ load
	lwzx 4, 5, 6           # @@ load
	lxvd2x 34, 0, 3        # @@ load
	lxv 34, 16(3)          # @@ load
	std 3, 16(1)           # @@ store
	stdu 1, -32(1)         # @@ store
	stxvd2x 34, 0, 3       # @@ store
	add 3, 4, 5            # @@ alu
	add. 3, 4, 5           # @@ alu
	addi 3, 3, 1           # @@ alu
	li 3, 0                # @@ alu
	cmpd 7, 3, 4           # @@ alu
	mflr 0                 # @@ alu
	mtctr 3                # @@ alu
	rotlwi 3, 3, 7         # @@ alu
	mulld 3, 4, 5          # @@ muldiv
	divdu 3, 4, 5          # @@ muldiv
	vcipher 2, 3, 4        # @@ crypto
	vcipherlast 2, 3, 4    # @@ crypto
	vncipher 2, 3, 4       # @@ crypto
	vpmsumd 2, 3, 4        # @@ crypto
	vshasigmaw 2, 3, 0, 0  # @@ crypto
	vsbox 2, 3             # @@ crypto
	vxor 2, 3, 4           # @@ simd
	xxlxor 34, 35, 36      # @@ simd
	vadduwm 2, 3, 4        # @@ simd
	fadd 1, 2, 3           # @@ simd
	lvsl 2, 3, 4           # @@ simd
	nop                    # @@ other
	sync                   # @@ other
	lwsync                 # @@ other
	isync                  # @@ other
	sc                     # @@ other
back:
	bne 7, fwd             # @@ cond fwd
	bne+ 7, fwd            # @@ cond fwd +
	beq- fwd               # @@ cond fwd -
	bdnz back              # @@ cond back
	bdnz+ back             # @@ cond back +
	bdnz- back             # @@ cond back -
	bdz+ fwd               # @@ cond fwd +
	bdnzt 2, back          # @@ cond back
	beqlr                  # @@ cond
	beqlr+                 # @@ cond - +
	bnectr- 7              # @@ cond - -
	b fwd                  # @@ jump fwd
	bc 20, 0, fwd          # @@ jump fwd
	bl fwd                 # @@ call fwd
	blr                    # @@ ret
	bctr                   # @@ ind
	bctrl                  # @@ ind
fwd:
	blrl                   # @@ ind

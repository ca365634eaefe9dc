//! Tests of the chunk plans: every splitting reassembles its input, per-input plans depend
//! on the bytes alone, skipping builds nothing, and the cycled-size byte format round-trips.

use super::*;

#[test]
fn every_splitting_reassembles_the_input() {
    for len in [0usize, 1, 2, 3, 7, 40, 700] {
        let bytes: Vec<u8> = (0..len).map(|i| i as u8).collect();
        let splittings: Vec<Vec<usize>> = chunkings(&bytes, 9).collect();
        assert_eq!(splittings.len(), chunking_count(len), "len {len}");
        for boundaries in &splittings {
            assert!(boundaries.windows(2).all(|pair| pair[0] <= pair[1]));
            assert!(boundaries.iter().all(|&b| b <= len));
            let joined: Vec<u8> = chunks(&bytes, boundaries).flatten().copied().collect();
            assert_eq!(joined, bytes);
            assert_eq!(chunks(&bytes, boundaries).count(), boundaries.len() + 1);
        }
        // Every two-chunk split is there.
        for split in 1..len {
            assert!(splittings.contains(&vec![split]));
        }
        if len >= 3 {
            assert!(splittings.contains(&(1..len).collect::<Vec<_>>()));
        }
        // Seeded splittings of inputs of 2 bytes or more make at least two chunks.
        if len >= 2 {
            assert!(splittings.iter().all(|boundaries| !boundaries.is_empty()));
        }
    }
}

#[test]
fn nth_skips_to_the_same_splitting_as_walking() {
    for len in [0usize, 1, 2, 3, 9, 130] {
        let bytes = vec![0u8; len];
        let all: Vec<Vec<usize>> = chunkings(&bytes, 4).collect();
        for (index, expected) in all.iter().enumerate() {
            assert_eq!(chunkings(&bytes, 4).nth(index).as_ref(), Some(expected));
        }
        assert_eq!(chunkings(&bytes, 4).nth(all.len()), None);
        let mut iter = chunkings(&bytes, 4);
        assert_eq!(iter.len(), all.len());
        if all.len() > 3 {
            iter.nth(1);
            assert_eq!(iter.next().as_ref(), Some(&all[2]));
        }
    }
}

#[test]
fn seeded_splittings_are_deterministic_and_vary_with_the_seed() {
    let bytes = [0u8; 200];
    let a: Vec<_> = chunkings(&bytes, 1).collect();
    assert_eq!(a, chunkings(&bytes, 1).collect::<Vec<_>>());
    assert_ne!(a, chunkings(&bytes, 2).collect::<Vec<_>>());
}

#[test]
fn seeded_splittings_include_empty_and_multi_byte_chunks() {
    let bytes = [0u8; 100];
    let mut empty = 0;
    let mut many = 0;
    for seed in 0..20 {
        for boundaries in chunkings(&bytes, seed).skip(100) {
            empty += chunks(&bytes, &boundaries).filter(|c| c.is_empty()).count();
            many += usize::from(boundaries.len() > 3);
        }
    }
    assert!(
        empty > 0 && many > 100,
        "{empty} empty chunks, {many} splittings"
    );
}

#[test]
fn per_input_chunks_concatenate_to_the_input_and_are_deterministic() {
    let input: Vec<u8> = (0..=255).collect();
    let mut cut_somewhere = false;
    let mut pieces = Vec::new();
    for len in [0, 1, 2, 3, 7, 100, 256] {
        ChunkPlan::PerInput.cut(&input[..len], &mut pieces);
        assert_eq!(pieces.concat(), &input[..len]);
        cut_somewhere |= pieces.len() > 1;
        assert_eq!(
            chunk_boundaries(&input[..len]),
            chunk_boundaries(&input[..len])
        );
    }
    assert!(cut_somewhere);
}

#[test]
fn cycled_plans_round_trip_and_cycle() {
    let plan = CycledSizes::new(&[2, 0, 3]).unwrap();
    let data = plan.encode(b"abcdefghij");
    assert_eq!(data[..4], [3, 2, 0, 3]);
    let (parsed, text) = CycledSizes::parse(&data);
    assert_eq!(parsed.sizes(), [2, 0, 3]);
    assert_eq!(text, b"abcdefghij");
    let chunks: Vec<&[u8]> = parsed.chunks(text).collect();
    assert_eq!(chunks.concat(), b"abcdefghij");
    assert_eq!(chunks[..4], [&b"ab"[..], b"", b"cde", b"fg"]);
    assert_eq!(parsed.chunks(b"").count(), 0);
}

#[test]
fn cycled_plans_of_no_or_zero_sizes_feed_one_chunk() {
    let data = CycledSizes::new(&[0, 0]).unwrap().encode(b"xyz");
    let (plan, text) = CycledSizes::parse(&data);
    assert_eq!(plan.chunks(text).collect::<Vec<_>>(), [&b"xyz"[..]]);
    let (plan, text) = CycledSizes::parse(&[]);
    assert_eq!(plan.chunks(text).collect::<Vec<_>>(), [&b""[..]]);
    assert_eq!(plan.describe(), "fed in one chunk");
}

#[test]
fn cycled_sizes_outside_the_byte_format_are_refused() {
    let too_many = [1; CycledSizes::MAX_SIZES + 1];
    assert_eq!(CycledSizes::new(&too_many), None);
    assert_eq!(CycledSizes::new(&[CycledSizes::MAX_SIZE + 1]), None);
    assert!(CycledSizes::new(&[CycledSizes::MAX_SIZE; CycledSizes::MAX_SIZES]).is_some());
}

#[test]
fn parsing_wraps_counts_and_sizes_into_the_format() {
    // A count byte of 9 means 9 % 8 = 1 size; a size byte of 66 means 66 % 65 = 1.
    let (plan, text) = CycledSizes::parse(&[9, 66, b'a', b'b']);
    assert_eq!(plan.sizes(), [1]);
    assert_eq!(text, b"ab");
}

#[test]
fn cached_splittings_are_the_drawn_ones() {
    // Every length up to the cache's limit and past it; inputs differing in content so
    // that different splittings are chosen.
    for len in 0..=CACHED_SPLITTING_LEN + 3 {
        for fill in [0u8, 0x41, 0xE4, 0xFF] {
            let input: Vec<u8> = (0..len).map(|i| fill.wrapping_add(i as u8)).collect();
            let drawn = chunkings(&input, CHUNKING_SEED)
                .nth(chosen_splitting(&input))
                .unwrap_or_default();
            // Twice: the first call fills the cache, the second reads it.
            for _ in 0..2 {
                assert_eq!(
                    chunk_boundaries(&input),
                    drawn,
                    "len {len} fill {fill:#04x}"
                );
            }
        }
    }
}

#[test]
fn chunks_past_the_stack_list_spill_to_the_heap_in_order() {
    let input: Vec<u8> = (0..=255).cycle().take(3 * STACK_CHUNKS + 5).collect();
    for sizes in [&[1usize][..], &[3], &[0, 2, 1], &[64]] {
        let plan = ChunkPlan::Cycled(CycledSizes::new(sizes).unwrap());
        let expected: Vec<&[u8]> = match &plan {
            ChunkPlan::Cycled(cycled) => cycled.chunks(&input).collect(),
            ChunkPlan::PerInput => unreachable!(),
        };
        let mut pieces = Vec::new();
        plan.cut(&input, &mut pieces);
        assert_eq!(pieces, expected, "sizes {sizes:?}");
        plan.with_chunks(&input, |chunks| assert_eq!(chunks, &expected[..]));
    }
}

use super::*;

fn cause(action: DecoderAction, unit: UnitKind) -> RootCause {
    RootCause {
        unit: CauseUnit {
            offset: 0,
            len: 1,
            bytes_hex: "00".into(),
            byte_classes: "00..7F".into(),
            unit,
        },
        reference_does: "UTF8-1".into(),
        decoder_does: action,
        position: None,
    }
}

#[test]
fn keys_ignore_scalars_and_titles_read_plainly() {
    let nul = cause(
        DecoderAction::Stops,
        UnitKind::WellFormed { row: 1, scalar: 0 },
    );
    assert_eq!(nul.title(), "stops decoding at U+0000");
    assert_eq!(nul.categories(), vec![Category::OutputCutShort]);
    let cesu = |scalar| {
        cause(
            DecoderAction::AcceptsAs {
                scalars: vec![scalar],
            },
            UnitKind::Error {
                category: Category::Cesu8Pair,
            },
        )
    };
    assert_eq!(cesu(0x10000).key(), cesu(0x1F600).key());
    assert_eq!(cesu(0x10000).title(), "accepts CESU-8 surrogate pairs");
    assert_ne!(
        Finding::id_for("a", &cesu(0x10000)),
        Finding::id_for("b", &cesu(0x10000))
    );
    let mut late = cause(
        DecoderAction::ValidUpToOff { by: 1 },
        UnitKind::Error {
            category: Category::InvalidLead,
        },
    );
    late.position = Some(PositionCondition::AtOrPast { offset: 64 });
    assert_eq!(
        late.title(),
        "reports valid_up_to off by 1, only when the unit is at offset >= 64"
    );
    assert_eq!(late.categories(), vec![Category::OffsetMiscounted]);
}

#[test]
fn rows_follow_table_3_7() {
    assert_eq!(table_row(0x41), 1);
    assert_eq!(table_row(0xE9), 2);
    assert_eq!(table_row(0x800), 3);
    assert_eq!(table_row(0xD7FF), 5);
    assert_eq!(table_row(0xFFFF), 6);
    assert_eq!(table_row(0x10000), 7);
    assert_eq!(table_row(0x100000), 9);
    assert_eq!(row_length(7), 4);
}

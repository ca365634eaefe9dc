//! A finding's title: its root cause in plain words.

use super::{row_length, DecoderAction, RootCause, StopClass, UnitKind};

impl RootCause {
    /// The finding's title, in plain words.
    pub fn title(&self) -> String {
        let unit = match &self.unit.unit {
            UnitKind::WellFormed { scalar, .. } => format!("U+{scalar:04X}"),
            UnitKind::Error { category } => category.prose().words.to_string(),
            UnitKind::End => "the end of input".to_string(),
        };
        let mut title = match &self.decoder_does {
            DecoderAction::AcceptsAs { .. } => format!("accepts {unit}"),
            DecoderAction::Replacements {
                policy: Some(policy),
                ..
            } => format!(
                "emits U+FFFD {} instead of per maximal subpart",
                policy.as_str()
            ),
            DecoderAction::Replacements {
                emitted, expected, ..
            } => format!("emits {emitted} U+FFFD where maximal subparts give {expected}"),
            DecoderAction::MergesWithNext => {
                format!("reports {unit} as longer than its maximal subpart")
            }
            DecoderAction::SplitsUnit => {
                format!("reports {unit} as shorter than its maximal subpart")
            }
            DecoderAction::MisjudgesEnd {
                reported_incomplete: true,
            } => "reports ill-formed bytes at the end of input as incomplete (error_len null)"
                .to_string(),
            DecoderAction::MisjudgesEnd {
                reported_incomplete: false,
            } => "reports a sequence cut by the end of input as invalid instead of incomplete"
                .to_string(),
            DecoderAction::SwallowsCharacter { .. } => {
                "swallows the well-formed character after an error".to_string()
            }
            DecoderAction::Stops => match &self.unit.unit {
                UnitKind::WellFormed { scalar, .. } => {
                    format!("stops decoding at {}", StopClass::of(*scalar).words())
                }
                _ => format!("stops decoding at {unit}"),
            },
            DecoderAction::ValidUpToOff { by } => {
                format!("reports valid_up_to off by {by}")
            }
            DecoderAction::RejectsCharacter => match &self.unit.unit {
                UnitKind::WellFormed { scalar, .. } if self.position.is_none() => {
                    match StopClass::of(*scalar) {
                        StopClass::Noncharacter => {
                            "rejects noncharacters, which are well-formed".into()
                        }
                        StopClass::Character => "rejects well-formed characters".into(),
                        class => format!("rejects well-formed {}", class.words()),
                    }
                }
                UnitKind::WellFormed { .. } => "rejects well-formed characters".to_string(),
                _ => format!("rejects {unit}"),
            },
            DecoderAction::Misdecodes { .. } => match &self.unit.unit {
                UnitKind::WellFormed { row, .. } => format!(
                    "decodes well-formed {}-byte characters to other scalars",
                    row_length(*row)
                ),
                _ => format!("decodes {unit} to other scalars"),
            },
            DecoderAction::Latin1Fallback => "falls back to Latin-1 on ill-formed input".into(),
            DecoderAction::StripsBom => "drops a leading byte order mark".to_string(),
            DecoderAction::OtherErrorUnits => {
                format!("reports error units other than the maximal subparts at {unit}")
            }
            DecoderAction::Fails => format!("fails on {unit}"),
        };
        if let Some(position) = self.position {
            title.push_str(", ");
            title.push_str(&position.describe());
        }
        title
    }
}

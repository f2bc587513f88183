//! The agent guide as an MCP skill (the skills extension, SEP-2640) and as a resource.
//!
//! One text, three ways in: the server's `instructions` are `docs/AGENTS_SNIPPET.md`; the
//! Claude Code / Codex plugin's skill is `packaging/plugin/…/SKILL.md`, that text under a front
//! matter (a test holds them equal); and this module serves the same `SKILL.md` over MCP:
//! `skills/list`, `skills/get`, `resources/list` and `resources/read` at [`SKILL_URI`]. Pure
//! answers; the handler in `server.rs` only forwards to them.

use rmcp::model::{
    CacheScope, ErrorData, GetSkillResult, ListResourceTemplatesResult, ListResourcesResult,
    ListSkillsResult, ReadResourceResult, Resource, ResourceContents, Skill, SkillFrontmatter,
    SkillResource, SkillResources,
};

/// The skill file as the plugin ships it: front matter, then the agent guide.
pub const SKILL_MD: &str =
    include_str!("../../packaging/plugin/mcp-computer-use/skills/desktop-windows/SKILL.md");

/// Where the skill's `SKILL.md` is served.
pub const SKILL_URI: &str = "skill://desktop-windows/SKILL.md";

/// How long a client may keep the listings: the guide changes only with the binary.
const TTL_MS: u64 = 24 * 60 * 60 * 1000;

/// The front matter's `name` and `description` (the lines `key: value` between the `---`s).
fn frontmatter() -> SkillFrontmatter {
    let head = SKILL_MD
        .strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---\n"))
        .map_or("", |(head, _)| head);
    let field = |key: &str| {
        head.lines()
            .find_map(|line| line.strip_prefix(key)?.strip_prefix(':'))
            .map_or(String::new(), |value| value.trim().to_owned())
    };
    SkillFrontmatter::new(field("name"), field("description"))
}

fn skill() -> Skill {
    Skill::new(
        SKILL_URI,
        frontmatter(),
        SkillResources::Files(vec![SkillResource::from_bytes(
            SKILL_URI,
            SKILL_MD.as_bytes(),
        )]),
    )
}

/// `skills/list`: the one skill.
pub fn list_skills() -> ListSkillsResult {
    ListSkillsResult::with_all_items(vec![skill()])
        .with_ttl_ms(TTL_MS)
        .with_cache_scope(CacheScope::Public)
}

/// `skills/get`: the skill at `uri`, else invalid params.
pub fn get_skill(uri: &str) -> Result<GetSkillResult, ErrorData> {
    if uri == SKILL_URI {
        Ok(GetSkillResult::new(skill()))
    } else {
        Err(ErrorData::invalid_params(
            format!("no skill at {uri}; this server has {SKILL_URI}"),
            None,
        ))
    }
}

/// `resources/list`: the skill file.
pub fn list_resources() -> ListResourcesResult {
    let skill = frontmatter();
    let file = Resource::new(SKILL_URI, skill.name)
        .with_description(skill.description)
        .with_mime_type("text/markdown")
        .with_size(SKILL_MD.len() as u64);
    ListResourcesResult::with_all_items(vec![file])
        .with_ttl_ms(TTL_MS)
        .with_cache_scope(CacheScope::Public)
}

/// `resources/templates/list`: none.
pub fn list_resource_templates() -> ListResourceTemplatesResult {
    ListResourceTemplatesResult::with_all_items(Vec::new())
        .with_ttl_ms(TTL_MS)
        .with_cache_scope(CacheScope::Public)
}

/// `resources/read`: the skill file, else resource not found.
pub fn read_resource(uri: &str) -> Result<ReadResourceResult, ErrorData> {
    if uri == SKILL_URI {
        Ok(ReadResourceResult::new(vec![ResourceContents::text(
            SKILL_MD, uri,
        )
        .with_mime_type("text/markdown")]))
    } else {
        Err(ErrorData::resource_not_found(
            format!("no resource at {uri}"),
            Some(serde_json::json!({ "uri": uri })),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_skill_is_the_agent_guide_under_its_front_matter_and_valid() {
        let body = SKILL_MD
            .strip_prefix("---\n")
            .and_then(|rest| rest.split_once("\n---\n"))
            .map(|(_, body)| body);
        assert_eq!(body, Some(crate::server::INSTRUCTIONS));
        let skill = skill();
        assert_eq!(skill.name(), "desktop-windows");
        assert!(skill
            .frontmatter
            .description
            .starts_with("How to see and operate"));
        assert_eq!(skill.validate(), Ok(()));
        let SkillResources::Files(files) = &skill.resources else {
            panic!("the skill lists its file");
        };
        assert_eq!(files[0].verify(SKILL_MD.as_bytes()), Ok(()));
    }

    #[test]
    fn other_uris_are_refused_with_the_right_errors() {
        assert!(get_skill("skill://other/SKILL.md").is_err());
        let missing = read_resource("skill://desktop-windows/other.md").err();
        assert_eq!(
            missing.as_ref().map(|e| e.code),
            Some(rmcp::model::ErrorCode::RESOURCE_NOT_FOUND)
        );
        assert_eq!(
            missing.and_then(|e| e.data),
            Some(serde_json::json!({ "uri": "skill://desktop-windows/other.md" }))
        );
        assert!(read_resource(SKILL_URI).is_ok());
    }
}

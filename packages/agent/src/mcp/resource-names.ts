// The names of the MCP resource tools, apart from the tools themselves (resources.ts): a run names
// them whether or not any MCP server is configured.
export const LIST_RESOURCES_TOOL = "ListMcpResourcesTool";
export const READ_RESOURCE_TOOL = "ReadMcpResourceTool";

/** The one client of the daemon, for the CLI, the MCP server and the VS Code extension (no vscode import). */
export * from './config';
export * from './connection';
export * from './convene';
export * from './discovery';
export * from './follower';
export * from './meetingHandle';
export * from './mirror';
export * from './models';
export * from './outputDir';
export * from './rawData';
export * from './readMeeting';
export * from './session';
export * from './spawn';

// The workflow bundle of the worker (workflowsPath): every feature's workflows, one folder per feature. A workflow
// type is its exported name, so these names are what running workflows and recorded histories know.
export * from './importen/workflows';
export * from './overdracht/workflows';
export * from './vernietiging/workflows';
